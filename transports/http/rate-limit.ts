/**
 * The global per-client-IP limiter (SPEC.md "Limits"): fixed one-minute windows keyed by the
 * client IP as resolved through --trusted-proxies. Counted in this process: the limiter sits on
 * every request, and a database round trip per request would cost more than it protects.
 */
import { ServiceError } from '../../core/errors.js';
import type { Kernel } from '../../core/kernel.js';
import { sendRefusal } from './errors.js';
import type { RequestStep } from './request-steps.js';
import ipaddr from 'ipaddr.js';

const KEY_CACHE_MAX = 10_000;
const keys = new Map<string, string>();

/**
 * The client a request counts against: the address without a port (a proxy may forward
 * `ip:port`, a new bucket per source port), an IPv4-mapped IPv6 address as IPv4, and an IPv6
 * address by its /64, the block one subscriber holds (a bucket per address let anyone with a
 * /64 walk past the limit: a review finding). Anything that is not an address counts as given.
 */
export function rateLimitKey(ip: string): string {
  const known = keys.get(ip);
  if (known !== undefined) return known;
  let s = ip;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':'));
  let key = s;
  if (ipaddr.isValid(s)) {
    const addr = ipaddr.process(s);
    key =
      addr.kind() === 'ipv6'
        ? `${(addr as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`
        : addr.toString();
  }
  if (keys.size >= KEY_CACHE_MAX) keys.clear();
  keys.set(ip, key);
  return key;
}

export class IpRateLimiter {
  private windows = new Map<string, number>();
  private windowStart = Date.now();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts a hit; returns the seconds until the window resets when over the limit, else 0. */
  hit(ip: string, now = Date.now()): number {
    if (now - this.windowStart >= this.windowMs) {
      this.windows = new Map();
      this.windowStart = now;
    }
    const count = (this.windows.get(ip) ?? 0) + 1;
    this.windows.set(ip, count);
    if (count <= this.limit) return 0;
    return Math.max(1, Math.ceil((this.windowStart + this.windowMs - now) / 1000));
  }
}

/** The limiter --rate-limit-per-minute asks for, or null when it is 0 (off). */
export function rateLimiterOf(kernel: Kernel): IpRateLimiter | null {
  const limit = kernel.config.number('rate-limit-per-minute', 600);
  return limit > 0 ? new IpRateLimiter(limit) : null;
}

/** The limit as a step of the onRequest hook (request-steps.ts): a synchronous count, no promise per request. */
export function rateLimitStep(limiter: IpRateLimiter): RequestStep {
  return (request, reply) => {
    const retry = limiter.hit(rateLimitKey(request.ip));
    if (retry === 0) return true;
    sendRefusal(
      request,
      reply,
      new ServiceError('resource_exhausted', 'too many requests', { 'retry-after': String(retry) }),
    );
    return false;
  };
}
