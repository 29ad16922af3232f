/**
 * Which client ids are client ID metadata document URLs (draft-ietf-oauth-client-id-metadata-
 * document §3): an https URL with a path (a bare origin is looked up in the registry instead),
 * no fragment, no user info, no `.` or `..` path segments; and whether its host may serve one
 * (`--client-id-metadata-allowed-domains`: empty accepts any host; an entry accepts that host
 * and its subdomains).
 */

/** The document URL when `clientId` is one, or null (the id is then no document client). */
export function documentUrl(clientId: string): URL | null {
  if (!clientId.startsWith('https://')) return null;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.pathname === '/' || url.pathname === '') return null;
  return url;
}

/** Why a document URL is refused before any fetch, or undefined when it may be fetched. */
export function urlRefusal(clientId: string, url: URL, allowedDomains: readonly string[]): string | undefined {
  if (url.hash || clientId.includes('#')) return 'a client_id URL must not contain a fragment';
  if (url.username || url.password) return 'a client_id URL must not contain user info';
  // The raw text is checked: URL parsing would resolve `/a/../b` to `/b` and hide the segment.
  const rawPath = clientId.slice(url.origin.length).split(/[?#]/)[0];
  const dotted = (seg: string) => ['.', '..'].includes(seg.replace(/%2e/gi, '.'));
  if (rawPath.split('/').some(dotted)) return 'a client_id URL must not contain dot path segments';
  if (!hostAllowed(url.hostname, allowedDomains))
    return `${url.hostname} is not allowed to serve client metadata documents`;
  return undefined;
}

export function hostAllowed(hostname: string, allowedDomains: readonly string[]): boolean {
  const domains = allowedDomains
    .map((d) =>
      d
        .trim()
        .toLowerCase()
        .replace(/^\.+|\.+$/g, ''),
    )
    .filter(Boolean);
  if (domains.length === 0) return true;
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}
