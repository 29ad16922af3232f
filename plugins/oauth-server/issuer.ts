/**
 * The issuer and endpoint URLs come from `--url` only (request headers never decide
 * the host). Scheme, host, port and path without a trailing slash.
 */
import type { Config } from '../../core/config.js';

/** The `iss` of every token (the tokens service signs with `--url` exactly as given). */
export function issuerOf(config: Config): string {
  return config.string('url') ?? '';
}

/** The base for endpoint URLs: `--url` without a trailing slash. */
export function baseOf(config: Config): string {
  const url = new URL(config.string('url') ?? 'http://localhost');
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

export const ENDPOINTS = {
  authorize: '/authorize',
  token: '/oauth/token',
  userinfo: '/userinfo',
  revoke: '/oauth/revoke',
  introspect: '/oauth/introspect',
  logout: '/logout',
  jwks: '/.well-known/jwks.json',
  register: '/oauth/register',
} as const;
