/**
 * `--url` rules: an absolute http(s) URL with a host and no user
 * info. It is the only source of the issuer and of links.
 */
export function checkBaseUrl(value: string | undefined): string | undefined {
  if (!value) return '--url is required: the absolute http(s) base URL of this service (e.g. https://auth.example.com)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `--url must be an absolute http(s) URL with a scheme and host; got "${value}"`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `--url must be an absolute http(s) URL with a scheme and host; got "${value}"`;
  }
  if (!url.hostname) return `--url must name a host; got "${value}"`;
  if (url.username || url.password) return '--url must not contain user info';
  return undefined;
}

/** The canonical base: scheme, host, port and path without a trailing slash. */
export function normalizeBaseUrl(value: string): string {
  const url = new URL(value);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}
