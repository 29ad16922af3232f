/**
 * `--trusted-proxies`: networks whose `X-Forwarded-For` is believed, as CIDR blocks or
 * single addresses. Parsed here, in the kernel, so that the flag's check (plugins/server) and every
 * transport that reads client addresses (HTTP through Fastify's trustProxy, gRPC through
 * transports/grpc/client-ip.ts) read the flag alike. Throws on an entry that is not an address.
 */
import ipaddr from 'ipaddr.js';

export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

export function parseTrustedProxies(list: readonly string[]): Cidr[] {
  return list.map((entry) => {
    const e = entry.trim();
    if (e.includes('/')) return ipaddr.parseCIDR(e);
    const addr = ipaddr.process(e);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  });
}
