/**
 * An upstream issuer or redirect URL an admin configures: absolute https, or http on loopback only
 * (a local identity provider in development and tests; openid-client's documented
 * `allowInsecureRequests` is applied only then). No credentials, no fragment (RFC 8414 §2: an
 * issuer has neither query nor fragment).
 */
import { invalidArgument } from '../../core/errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function loopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK.has(url.hostname);
}

export function checkedUrl(text: string, field: string, issuer = false): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidArgument(`${field} must be an absolute URL`);
  }
  if (url.protocol !== 'https:' && !loopbackHttp(url)) throw invalidArgument(`${field} must use https`);
  if (url.username || url.password || url.hash)
    throw invalidArgument(`${field} must not carry credentials or a fragment`);
  if (issuer && url.search) throw invalidArgument(`${field} must not carry a query`);
  return issuer ? url.href.replace(/\/+$/, '') : url.href;
}
