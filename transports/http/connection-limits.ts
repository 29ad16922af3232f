/**
 * A cap on the HTTP connections one client address holds open at once
 * (`--connection-limit-per-ip`), so that a slow client (slowloris: many connections, each
 * dribbling its headers or body) cannot take every socket the process can hold and starve
 * everyone else. The header and body timeouts (transports/http/server.ts) bound how long each of
 * its connections lives; this bounds how many it has meanwhile.
 *
 * The client is the socket's remote address: no request, hence no `X-Forwarded-For`, exists yet
 * when a connection opens. An IPv6 address counts by its /64, as the rate limiter counts it
 * (rate-limit.ts). Connections from a `--trusted-proxies` address are not capped: a reverse proxy
 * carries many clients over its own connections, and their requests are limited per client by the
 * rate limiter instead.
 *
 * A connection over the cap is closed as it opens, before Node's HTTP parser reads a byte of it,
 * so nothing of it reaches a route; its client sees the connection reset, as a load balancer's
 * connection limit does.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Cidr } from '../../core/trusted-proxies.js';
import { rateLimitKey } from './rate-limit.js';

export interface ConnectionLimit {
  /** Connections open now from the client of `remoteAddress`. */
  openFrom(remoteAddress: string): number;
  /** Connections closed as they opened because their client was at the cap. */
  readonly refused: number;
}

function isTrusted(address: string, proxies: readonly Cidr[]): boolean {
  if (proxies.length === 0 || !ipaddr.isValid(address)) return false;
  const a = ipaddr.process(address);
  return proxies.some(([net, bits]) => a.kind() === net.kind() && a.match([net, bits] as Cidr));
}

/**
 * Caps `server`'s open connections per client address at `max` (0: no cap), through the server's
 * `connection` event: a socket closed there has not been read yet.
 */
export function limitConnectionsPerAddress(server: Server, max: number, proxies: readonly Cidr[]): ConnectionLimit {
  const open = new Map<string, number>();
  let refused = 0;
  if (max > 0) {
    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress;
      // A socket already closed by its peer has no address; there is nothing to count.
      if (address === undefined || isTrusted(address, proxies)) return;
      const key = rateLimitKey(address);
      const count = open.get(key) ?? 0;
      if (count >= max) {
        refused++;
        socket.destroy();
        return;
      }
      open.set(key, count + 1);
      socket.once('close', () => {
        const left = (open.get(key) ?? 1) - 1;
        if (left > 0) open.set(key, left);
        else open.delete(key);
      });
    });
  }
  return {
    openFrom: (remoteAddress) => open.get(rateLimitKey(remoteAddress)) ?? 0,
    get refused() {
      return refused;
    },
  };
}
