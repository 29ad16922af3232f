/**
 * Input rules for registered clients: redirect URIs (RFC 6749 §3.1.2, RFC 9700 §2.1 and §4.1.1)
 * and scope tokens (RFC 6749 §3.3).
 */
import { invalidArgument } from '../../core/errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

/**
 * A redirect URI must be absolute and carry no fragment; https everywhere, plain http only for
 * loopback (native and development clients, RFC 8252 §7.3), or a private-use scheme with a dot
 * (RFC 8252 §7.1). Matching later is exact string comparison, so nothing is normalized here.
 */
export function checkRedirectUri(value: string, field: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidArgument(`invalid ${field}: ${JSON.stringify(value)} is not an absolute URI`);
  }
  if (url.hash || value.includes('#'))
    throw invalidArgument(`invalid ${field}: a redirect URI must not contain a fragment`);
  if (url.username || url.password)
    throw invalidArgument(`invalid ${field}: a redirect URI must not contain user info`);
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:') {
    if (LOOPBACK.has(url.hostname)) return;
    throw invalidArgument(`invalid ${field}: http redirect URIs are allowed only for loopback hosts; use https`);
  }
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/i.test(url.protocol)) return;
  throw invalidArgument(`invalid ${field}: scheme ${url.protocol} is not allowed`);
}

export function checkRedirectUris(values: readonly string[] | undefined, field: string): string[] {
  const out = [...new Set(values ?? [])];
  for (const v of out) checkRedirectUri(v, field);
  return out;
}

export function checkScopes(values: readonly string[]): string[] {
  const out = [...new Set(values)];
  for (const s of out)
    if (!SCOPE_TOKEN.test(s))
      throw invalidArgument(`invalid allowed_scopes: ${JSON.stringify(s)} is not a scope token`);
  return out;
}

export function checkName(value: string): string {
  const name = value.trim();
  if (!name) throw invalidArgument('invalid name: must not be empty');
  return name;
}
