/**
 * The global per-client-IP limiter (SPEC.md "Limits"): fixed one-minute windows keyed by the
 * client IP as resolved through --trusted-proxies. Counted in this process: the limiter sits on
 * every request, and a database round trip per request would cost more than it protects.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ServiceError } from '../../core/errors.js';
import { sendRefusal } from './errors.js';

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

export function rateLimitHook(limiter: IpRateLimiter) {
  // Callback style: this runs on every request, and an async hook costs a promise per request.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const retry = limiter.hit(request.ip);
    if (retry === 0) return done();
    sendRefusal(request, reply, new ServiceError('resource_exhausted', 'too many requests', { 'retry-after': String(retry) }));
  };
}
