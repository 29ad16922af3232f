/**
 * The audiences an assertion may name (RFC 7523 §3: this authorization server; OIDC Core §9: the
 * token endpoint URL). Both come from `--url`, never from request headers.
 */
import type { Config } from '../../core/config.js';

/** The token endpoint, the audience an assertion names. */
export const TOKEN_PATH = '/oauth/token';

export function audiencesOf(config: Config): string[] {
  const issuer = config.string('url') ?? '';
  const url = new URL(issuer || 'http://localhost');
  const base = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  return [...new Set([base + TOKEN_PATH, issuer, base])];
}
