/**
 * Cookies for every transport: a Cookie header (HTTP) or `cookie` metadata (gRPC) is parsed the
 * same way (RFC 6265 §5.4), and the context's cookie effects leave in Set-Cookie syntax
 * (RFC 6265 §4.1) as HTTP headers or gRPC metadata, so a client that talks both keeps one jar.
 */
import type { CookieEffect } from './context.js';

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `a=1; b="2"` -> `{ a: '1', b: '2' }`; the first occurrence of a name wins (RFC 6265 §5.4). */
export function parseCookieHeader(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (name && !(name in out)) out[name] = decode(value);
  }
  return out;
}

const SAME_SITE = { lax: 'Lax', strict: 'Strict', none: 'None' } as const;

/**
 * Values that encodeURIComponent leaves as they are: the sealed session cookies are base64url, and
 * checking that is cheaper than the encoder's own pass (~7k machine instructions a login for the
 * two cookies, bench/profiling/callgrind-requests.ts OP=login).
 */
const UNRESERVED = /^[A-Za-z0-9_.~-]*$/;

export function serializeSetCookie(c: CookieEffect): string {
  const parts = [`${c.name}=${UNRESERVED.test(c.value) ? c.value : encodeURIComponent(c.value)}`];
  const o = c.options;
  if (o.maxAge !== undefined) {
    const seconds = Math.max(0, Math.floor(o.maxAge));
    parts.push(`Max-Age=${seconds}`);
    if (seconds === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  }
  if (o.domain) parts.push(`Domain=${o.domain}`);
  parts.push(`Path=${o.path ?? '/'}`);
  if (o.httpOnly ?? true) parts.push('HttpOnly');
  if (o.secure) parts.push('Secure');
  if (o.sameSite) parts.push(`SameSite=${SAME_SITE[o.sameSite]}`);
  return parts.join('; ');
}
