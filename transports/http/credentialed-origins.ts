/**
 * Which browser origins may use the caller's cookies (CORS with credentials; the session and admin
 * cookies honoured and set). Listed `--allowed-origins` and the service's own origin always may.
 * `--allowed-origins *` (the flag's default) opens CORS to every origin for reads without
 * credentials, but credentials only to the service's own site (core/own-site.ts), over the
 * service's own scheme (schemeful same-site, as browsers now decide SameSite).
 *
 * Why: the session cookies are `SameSite=None` by default, so browsers attach them to requests
 * from any site. Echoing every origin for `*` with `Access-Control-Allow-Credentials` would let any
 * website `fetch('/v1/session', {credentials: 'include'})` and read a signed-in user's tokens, or
 * post a form that changes their profile. A request from an origin
 * not trusted here is served as if it came without cookies, and sets none.
 */
import { ownSite } from '../../core/own-site.js';
import type { Kernel } from '../../core/kernel.js';
import { originAllowList } from './cors.js';

export interface CredentialedOrigins {
  /**
   * True for a request with no Origin header (navigations, server-side clients) and for trusted
   * origins; false for other sites. `Origin: null` is trusted only when the browser itself says
   * the request is same-origin (`fetchSite`, the `Sec-Fetch-Site` header, which pages cannot set):
   * a same-origin form post from a page with `Referrer-Policy: no-referrer` (the security headers'
   * default) carries `Origin: null` (Fetch standard, "append a request Origin header"), and so do
   * sandboxed frames and cross-site redirects, which must not be trusted.
   */
  trusts(origin: string | undefined, fetchSite?: string): boolean;
}

export function credentialedOrigins(url: string | undefined, allowed: readonly string[]): CredentialedOrigins {
  const self = parse(url);
  // URL's `origin` is a getter that builds a new string on every read.
  const selfOrigin = self?.origin;
  const site = ownSite(url);
  const origins = originAllowList(allowed);
  const decide = (origin: string): boolean => {
    if (origin === selfOrigin || origins.lists(origin)) return true;
    if (!origins.any || !self) return false;
    const from = parse(origin);
    return (
      from !== undefined && from.origin === origin && from.protocol === self.protocol && site.includes(from.hostname)
    );
  };
  // Asked up to three times per request (context, CSRF, CORS), mostly for the same few origins:
  // verdicts are remembered, in a map bounded so that a client sending a new Origin on every
  // request cannot grow it.
  const known = new Map<string, boolean>();
  return {
    trusts(origin, fetchSite) {
      if (origin === undefined) return true;
      if (origin === 'null') return fetchSite === 'same-origin';
      let verdict = known.get(origin);
      if (verdict === undefined) {
        verdict = decide(origin);
        if (known.size >= KNOWN_ORIGINS) known.clear();
        known.set(origin, verdict);
      }
      return verdict;
    },
  };
}

/** Distinct origins whose verdicts are remembered before the memory starts over. */
const KNOWN_ORIGINS = 256;

const byKernel = new WeakMap<Kernel, CredentialedOrigins>();

/** The kernel's policy, made once from its config (per kernel: two kernels in one process keep their own). */
export function credentialedOriginsOf(kernel: Kernel): CredentialedOrigins {
  let policy = byKernel.get(kernel);
  if (!policy)
    byKernel.set(
      kernel,
      (policy = credentialedOrigins(kernel.config.string('url'), kernel.config.list('allowed-origins'))),
    );
  return policy;
}

function parse(url: string | undefined): URL | undefined {
  if (!url || url === 'null') return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
