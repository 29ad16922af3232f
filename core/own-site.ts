/**
 * The service's own site: the hosts that belong to the deployment named by `--url`. Three
 * decisions rest on it, and they must agree:
 * - the domain-scoped session cookie (`cookie_session_domain`) goes to
 *   the parent domain of `--url`'s host;
 * - the built-in client may redirect tokens within that site when `--allowed-origins` is `*`;
 * - with `--allowed-origins *`, a browser origin of that site may call with its cookies
 *   (credentialed CORS), and one of any other site may not.
 *
 * Public suffixes come from the Public Suffix List (tldts, private domains included), so
 * `app.example.co.uk` and `app.github.io` never make `co.uk` or `github.io` their site: with a
 * bare label count the first named every `.co.uk` host, a redirect target for tokens.
 */
import { isIP } from 'node:net';
import { getDomain } from 'tldts';

const PSL = { allowPrivateDomains: true } as const;

const hostOf = (url: string | undefined): string | undefined => {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
};

/** Loopback hosts (RFC 6761 §6.3 for `localhost` and its subdomains). */
export const isLoopbackHost = (host: string): boolean =>
  host === 'localhost' || host.endsWith('.localhost') || host === '127.0.0.1' || host === '[::1]';

/**
 * The host of `--url` without its first label, when that is still a registrable domain or below
 * one: `auth.example.com` -> `example.com`, `auth.example.co.uk` -> `example.co.uk`,
 * `auth.corp.example.com` -> `corp.example.com` (not the whole organisation). A host that is
 * itself a registrable domain (`example.com`, `example.co.uk`, `app.github.io`), localhost and IPs
 * have none.
 */
export function parentDomain(url: string | undefined): string | undefined {
  const host = hostOf(url);
  if (!host || isIP(host) || host.startsWith('[')) return undefined;
  const labels = host.split('.');
  if (labels.length < 3 || labels.at(-1) === 'localhost') return undefined;
  const parent = labels.slice(1).join('.');
  const registrable = getDomain(host, PSL);
  if (!registrable || (parent !== registrable && !parent.endsWith(`.${registrable}`))) return undefined;
  return parent;
}

export interface OwnSite {
  /** `--url`'s host, without a trailing dot. */
  readonly host: string;
  /** Whether a host belongs to the service's site: its own host, the cookie's parent domain and what is under it, or loopback from a loopback service (development). */
  includes(host: string): boolean;
}

export function ownSite(url: string | undefined): OwnSite {
  const host = hostOf(url) ?? '';
  const parent = parentDomain(url);
  return {
    host,
    includes(other) {
      const h = other.replace(/\.$/, '');
      return (
        h === host ||
        (parent !== undefined && (h === parent || h.endsWith(`.${parent}`))) ||
        (isLoopbackHost(host) && isLoopbackHost(h))
      );
    },
  };
}
