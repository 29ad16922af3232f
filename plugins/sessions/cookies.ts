/**
 * The app session cookies: `cookie_session` (host-scoped) and
 * `cookie_session_domain` (scoped to the parent domain of `--url`, so sibling apps share the
 * login). Both are HTTP-only and carry the same opaque value: the session's ids sealed with
 * AES-256-GCM by the `keys` service, never readable or forgeable by the client.
 */
import type { Config } from '../../core/config.js';
import type { CookieOptions } from '../../core/context.js';
import { parentDomain } from '../../core/own-site.js';

export const SESSION_COOKIE = 'cookie_session';
export const SESSION_DOMAIN_COOKIE = 'cookie_session_domain';
export const COOKIE_PURPOSE = 'app-session-cookie';

/** The domain cookie's scope (core/own-site.ts, shared with redirects and CORS). */
export { parentDomain };

/**
 * The session cookies' attributes. SameSite defaults to `none`; an empty value
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
