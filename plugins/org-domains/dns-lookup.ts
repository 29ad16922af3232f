/**
 * The TXT lookup of a challenge (TXT only, about 5
 * seconds, no HTTP fetch). One resolver per lookup, so a lookup that runs out of time is
 * cancelled alone; `--dns-resolver` names the servers (the system's by default).
 */
import { Resolver } from 'node:dns/promises';

export const DEFAULT_DNS_TIMEOUT_MS = 5_000;

export type TxtAnswer = { kind: 'records'; values: string[] } | { kind: 'none' } | { kind: 'failed'; reason: string };

/** The codes that mean the name has no TXT record (RFC 2308 NXDOMAIN / NODATA). */
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN', 'ENONAME']);

export type TxtLookup = (name: string) => Promise<TxtAnswer>;

export function txtLookup(servers: readonly string[], timeoutMs = DEFAULT_DNS_TIMEOUT_MS): TxtLookup {
  return async (name) => {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (servers.length > 0) resolver.setServers([...servers]);
    // The resolver's own timeout is per attempt; this bounds the whole lookup as well.
    const guard = setTimeout(() => resolver.cancel(), timeoutMs + 250);
    try {
      const records = await resolver.resolveTxt(name);
      // A TXT record's value is its character-strings joined (RFC 7208 §3.3 reads them so too).
      return { kind: 'records', values: records.map((chunks) => chunks.join('')) };
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'EUNKNOWN';
      return NO_RECORD.has(code) ? { kind: 'none' } : { kind: 'failed', reason: code };
    } finally {
      clearTimeout(guard);
    }
  };
}

/** Whether `servers` is a list `setServers` takes (IP addresses with optional ports). */
export function resolverProblem(servers: readonly string[]): string | undefined {
  if (servers.length === 0) return undefined;
  try {
    new Resolver().setServers([...servers]);
    return undefined;
  } catch {
    return `--dns-resolver must list DNS servers as HOST:PORT (IP addresses), comma-separated; got "${servers.join(',')}"`;
  }
}
