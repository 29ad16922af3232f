/**
 * The per-IP bucket of discovery through the hosted login page (the email-first form; the GET
 * route has the transport's per-route limit): fixed one-minute windows in the memory store, keyed
 * by the client IP as resolved through --trusted-proxies, an IPv6 client by its /64 (the block
 * one subscriber holds).
 */
import ipaddr from 'ipaddr.js';
import { ServiceError } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';

export const DEFAULT_DISCOVERY_LIMIT_PER_MINUTE = 30;
const WINDOW_MS = 60_000;

export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip.slice(0, 64);
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return addr.toString();
  return `${(addr as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

export async function countDiscovery(memory: MemoryStore, ip: string, limit: number): Promise<void> {
  const count = await memory.increment(`org-discovery:ip:${clientKey(ip)}`, WINDOW_MS);
  if (count > limit) {
    throw new ServiceError('resource_exhausted', 'too many requests', { 'retry-after': String(WINDOW_MS / 1000) });
  }
}
