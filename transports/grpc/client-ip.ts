/**
 * The caller's IP for a gRPC call: the connection's remote address,
 * and `x-forwarded-for` metadata only when that address belongs to a trusted proxy network; then
 * the right-most address that is not itself a trusted proxy wins (it cannot be forged by the client).
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

import { parseTrustedProxies, type Cidr } from '../../core/trusted-proxies.js';

export { parseTrustedProxies, type Cidr };

function normalize(ip: string): string {
  // IPv4 clients of a dual-stack listener appear as ::ffff:a.b.c.d.
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip) ? ip.slice(7) : ip;
}

/** A socket's remote address as the client IP: IPv4 clients of a dual-stack listener are plain IPv4. */
export function socketAddress(remote: string | undefined): string {
  return remote ? normalize(remote) : 'unknown';
}

/**
 * The address in grpc-js's peer string (`address:port`, an IPv6 address unbracketed) without
 * its port; `unknown` stays as it is.
 */
export function peerAddress(peer: string): string {
  const colon = peer.lastIndexOf(':');
  return socketAddress(colon > 0 && /^\d+$/.test(peer.slice(colon + 1)) ? peer.slice(0, colon) : peer);
}

function trusted(ip: string, proxies: readonly Cidr[]): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const a = ipaddr.process(ip);
  return proxies.some(([net, bits]) => a.kind() === net.kind() && a.match([net, bits] as Cidr));
}

export function clientIp(remote: string, forwardedFor: string | undefined, proxies: readonly Cidr[]): string {
  if (!forwardedFor || !trusted(remote, proxies)) return remote;
  const hops = forwardedFor
    .split(',')
    .map((h) => normalize(h.trim()))
    .filter(Boolean);
  let ip = remote;
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isIP(hops[i])) return ip;
    ip = hops[i];
    if (!trusted(ip, proxies)) return ip;
  }
  return ip;
}
