/**
 * How long a fetched client metadata document is kept: what its HTTP caching headers say
 * (RFC 9111 §4.2.1: `max-age`, else `Expires` against `Date`), clamped so that a document is
 * neither fetched on every authorization request nor trusted for days after its owner changed it.
 */
export const MIN_TTL_MS = 60_000;
export const MAX_TTL_MS = 24 * 60 * 60_000;
/** Without caching headers. */
export const DEFAULT_TTL_MS = 10 * 60_000;

export function documentTtlMs(headers: Record<string, string>, now = Date.now()): number {
  return clamp(declaredTtlMs(headers, now));
}

function declaredTtlMs(headers: Record<string, string>, now: number): number {
  const control = (headers['cache-control'] ?? '').toLowerCase();
  if (/(^|,)\s*(no-store|no-cache)\b/.test(control)) return 0;
  const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(control);
  if (maxAge) return Number(maxAge[2]) * 1000;
  if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    if (Number.isNaN(expires)) return 0;
    const date = headers.date !== undefined ? Date.parse(headers.date) : NaN;
    return expires - (Number.isNaN(date) ? now : date);
  }
  return DEFAULT_TTL_MS;
}

function clamp(ms: number): number {
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, ms));
}
