/**
 * Per-client-IP rate limits through @fastify/rate-limit: the global limiter
 * (--rate-limit-per-minute per one-minute window) on every route, and a bucket of its own for a
 * route whose plugin declares one (RawRoute.rateLimit: org discovery, dynamic registration).
 * Refusals are 429 in the transport's envelope (`resource_exhausted`, REST's `{code, message}`,
 * GraphQL's `errors[].extensions.code`) with `Retry-After` and the `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset` headers (the plugin's `enableDraftSpec`).
 *
 * Where the counts live: with --redis-url, in Redis through the plugin's own Redis store, so every
 * node behind a load balancer spends one budget per client. Without it, in this process, in a
 * store (the plugin's documented `store` option) that the gRPC server counts in too, so a client
 * has one budget over HTTP and gRPC.
 */
import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import ipaddr from 'ipaddr.js';
import { ServiceError } from '../../core/errors.js';
import type { Kernel } from '../../core/kernel.js';
import { parseRedisUrl } from '../../storage/memory/redis.js';

const KEY_CACHE_MAX = 10_000;
const keys = new Map<string, string>();

/** The global window: the per-IP limiter counts per minute (--rate-limit-per-minute). */
export const GLOBAL_WINDOW_MS = 60_000;

/**
 * The client a request counts against: the address without a port (a proxy may forward
 * `ip:port`, a new bucket per source port), an IPv4-mapped IPv6 address as IPv4, and an IPv6
 * address by its /64, the block one subscriber holds (a bucket per address let anyone with a
 * /64 walk past the limit). Anything that is not an address counts as given. The plugin's own
 * key generator does the last two but not the first, hence this one.
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

/** A count in a fixed window: how many so far, and the milliseconds until the window ends. */
export interface WindowCount {
  current: number;
  ttl: number;
}

/**
 * Fixed windows counted in this process, per key. `hit` answers the gRPC server (the seconds until
 * the client may try again, or 0), `count` the HTTP limiter's store; both spend one budget.
 */
export class IpRateLimiter {
  private windows = new Map<string, number>();
  private windowStart = Date.now();

  constructor(
    readonly limit: number,
    readonly windowMs = GLOBAL_WINDOW_MS,
  ) {}

  /** Counts a request of `key`. */
  count(key: string, now = Date.now()): WindowCount {
    if (now - this.windowStart >= this.windowMs) {
      this.windows = new Map();
      this.windowStart = now;
    }
    const current = (this.windows.get(key) ?? 0) + 1;
    this.windows.set(key, current);
    return { current, ttl: this.windowStart + this.windowMs - now };
  }

  /** Counts a hit; returns the seconds until the window resets when over the limit, else 0. */
  hit(key: string, now = Date.now()): number {
    const { current, ttl } = this.count(key, now);
    if (current <= this.limit) return 0;
    return Math.max(1, Math.ceil(ttl / 1000));
  }
}

/** The in-process limiter --rate-limit-per-minute asks for, or null when it is 0 (off). */
export function rateLimiterOf(kernel: Kernel): IpRateLimiter | null {
  const limit = kernel.config.number('rate-limit-per-minute', 600);
  return limit > 0 ? new IpRateLimiter(limit) : null;
}

type Incr = (err: Error | null, res?: WindowCount) => void;

/**
 * The plugin's `store` interface (its README, "Custom store") over IpRateLimiter: the root store
 * counts in the limiter shared with gRPC; a route's child counts in a limiter of its own, whose
 * window is the one the plugin passes with each count (the route's `timeWindow`).
 */
function processStore(shared: IpRateLimiter | null) {
  return class ProcessRateLimitStore {
    private limiter: IpRateLimiter | null;

    constructor(_options?: unknown, own: IpRateLimiter | null = shared) {
      this.limiter = own;
    }

    incr(key: string, cb: Incr, timeWindow: number): void {
      this.limiter ??= new IpRateLimiter(0, timeWindow);
      cb(null, this.limiter.count(key));
    }

    child(): ProcessRateLimitStore {
      return new ProcessRateLimitStore(undefined, null);
    }
  };
}

export interface RateLimitOptions {
  /** The in-process global limiter (shared with gRPC), or null when --rate-limit-per-minute is 0. */
  limiter: IpRateLimiter | null;
}

/**
 * Registers @fastify/rate-limit in the kernel's scope: the global limit on every route (when on),
 * a route's own `config.rateLimit` instead where it declares one.
 */
export async function registerRateLimit(app: FastifyInstance, kernel: Kernel, { limiter }: RateLimitOptions) {
  const redisUrl = kernel.config.string('redis-url', '').trim();
  let redis: Redis | undefined;
  let nameSpace: string | undefined;
  if (redisUrl) {
    const target = parseRedisUrl(redisUrl);
    // A count that cannot be had within a second is skipped (skipOnError below), and while the
    // connection is down a count fails at once: a Redis that stops answering must not hold every
    // request behind its limiter.
    redis = new Redis(target.url, {
      connectTimeout: 2_000,
      commandTimeout: 1_000,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    // Trouble shows in the commands themselves (the limiter then lets requests through, see
    // skipOnError below); an unhandled 'error' event would end the process.
    redis.on('error', () => {});
    try {
      await redis.connect();
    } catch (err) {
      redis.disconnect();
      throw new Error(`could not reach Redis for the rate limits: ${(err as Error).message}`, { cause: err });
    }
    nameSpace = `${target.namespace}rate-limit:`;
    app.addHook('onClose', async () => {
      await redis?.quit().catch(() => redis?.disconnect());
    });
  }
  await app.register(rateLimit, {
    global: limiter !== null,
    max: limiter?.limit ?? 0,
    timeWindow: GLOBAL_WINDOW_MS,
    keyGenerator: (request) => rateLimitKey(request.ip),
    enableDraftSpec: true,
    // A store that cannot answer does not take the service down with it: sessions and tokens
    // live in the same Redis and report its absence themselves (/readyz).
    skipOnError: true,
    ...(redis ? { redis, nameSpace } : { store: processStore(limiter) }),
    errorResponseBuilder: (_request, context) =>
      new ServiceError('resource_exhausted', 'too many requests', {
        'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
      }),
  });
}
