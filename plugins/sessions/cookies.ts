/**
 * The app session cookies (SPEC.md "Authentication"): `cookie_session` (host-scoped) and
 * `cookie_session_domain` (scoped to the parent domain of `--url`, so sibling apps share the
 * login). Both are HTTP-only and carry the same opaque value: the session's ids sealed with
 * AES-256-GCM by the `keys` service, never readable or forgeable by the client.
 */
import type { Config } from '../../core/config.js';
import type { CookieOptions } from '../../core/context.js';
import { isIP } from 'node:net';

export const SESSION_COOKIE = 'cookie_session';
export const SESSION_DOMAIN_COOKIE = 'cookie_session_domain';
export const COOKIE_PURPOSE = 'app-session-cookie';

/**
 * The host of `--url` without its first label: `auth.example.com` -> `example.com`,
 * `auth.example.co.uk` -> `example.co.uk`, `auth.corp.example.com` -> `corp.example.com`. Hosts
 * with two labels, localhost and IPs have none. It used to be the last two labels, which gave
 * `co.uk` (a public suffix: browsers drop the cookie, and a lax cookie jar would send the
 * session to every `.co.uk` site) and shared a deeper host's cookie with its whole organisation
 * (a review finding). Without the public suffix list a host directly under a multi-label suffix
 * (`app.github.io`) still names one (`github.io`), which browsers refuse: give such a service a
 * host of its own.
 */
export function parentDomain(url: string | undefined): string | undefined {
  if (!url) return undefined;
  let host: string;
  try {
    host = new URL(url).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
  if (isIP(host) || host.startsWith('[')) return undefined;
  const labels = host.split('.');
  if (labels.length < 3 || labels.at(-1) === 'localhost') return undefined;
  return labels.slice(1).join('.');
}

/**
 * The session cookies' attributes. SameSite defaults to `none` (SPEC.md flags); an empty value
 * counts as not given. Browsers drop a `SameSite=None` cookie that is not `Secure`, so with
 * `--app-cookie-secure=false` (plain-HTTP deployments) `none` is sent as `Lax`, the browsers' own
 * default, instead of a cookie no browser keeps.
 */
export function cookieOptions(config: Config, maxAgeSeconds: number): { host: CookieOptions; domain: CookieOptions } {
  const secure = config.bool('app-cookie-secure', true);
  const asked = (config.string('app-cookie-same-site', 'none') || 'none') as NonNullable<CookieOptions['sameSite']>;
  const sameSite = asked === 'none' && !secure ? 'lax' : asked;
  const base: CookieOptions = { httpOnly: true, secure, sameSite, path: '/', maxAge: maxAgeSeconds };
  const domain = parentDomain(config.string('url'));
  return { host: base, domain: domain ? { ...base, domain } : base };
}
