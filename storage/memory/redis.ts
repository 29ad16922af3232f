/**
 * The Redis memory store: shared by every node. Each operation is one Redis
 * command or script, so atomicity is Redis's own: GETDEL for consume, SET NX PX for
 * setIfAbsent, and a Lua script for increment that sets the TTL only when the count starts
 * (fixed windows). Keys live under a namespace prefix; `keys`/`deletePrefix` walk with SCAN,
 * never KEYS, so a large keyspace is not blocked.
 *
 * The namespace defaults to `latchkey:` and can be set with a `prefix` query parameter on the
 * URL (`redis://host:6379/0?prefix=tenant-a:`), which is also how tests isolate themselves.
 */
import { Redis } from 'ioredis';
import { ServiceError } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';
import { ttl } from './process.js';

const DEFAULT_NAMESPACE = 'latchkey:';
const SCAN_BATCH = 500;
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * How long one command may wait for its answer. A Redis that stops answering without closing the
 * connection (a dropped route, a stalled host) would otherwise hold every request that needs it.
 */
export const COMMAND_TIMEOUT_MS = 2_000;

/** What a request that needs the store gets while Redis cannot answer: a 503, never a 500 or a hang. */
const unavailable = (cause: unknown) =>
  Object.assign(new ServiceError('unavailable', 'the memory store is not available, try again later'), { cause });

// INCR, and PEXPIRE only when this increment opened the window (or, defensively, when the key
// somehow has no expiry), so later increments never extend it.
const INCREMENT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 or redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return n
`;

export interface RedisTarget {
  url: string;
  namespace: string;
}

/** Splits the store's own `prefix` parameter off the URL ioredis gets. */
export function parseRedisUrl(raw: string): RedisTarget {
  const url = new URL(raw);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new Error(`--redis-url must start with redis:// or rediss://`);
  }
  const namespace = url.searchParams.get('prefix') ?? DEFAULT_NAMESPACE;
  url.searchParams.delete('prefix');
  return { url: url.toString(), namespace };
}

export class RedisMemoryStore implements MemoryStore {
  readonly backend = 'redis' as const;

  private constructor(
    private readonly client: Redis,
    readonly namespace: string,
  ) {}

  static async open(rawUrl: string): Promise<RedisMemoryStore> {
    const { url, namespace } = parseRedisUrl(rawUrl);
    const client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // While the connection is down a command fails at once instead of waiting in a queue for
      // a reconnect that may never come; the request answers 503 and the caller may retry.
      enableOfflineQueue: false,
      // A command that timed out was already answered as failed: it is not sent again later.
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      // Reconnect at boot-like speed first, then keep trying every 2 s in the background.
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
    // ioredis reports connection trouble as events; the commands themselves reject.
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (err) {
      client.disconnect();
      throw new Error(
        `could not reach Redis at ${redactRedis(url)}: ${err instanceof Error ? err.message : String(err)}`,
        {
          cause: err,
        },
      );
    }
    return new RedisMemoryStore(client, namespace);
  }

  private k(key: string): string {
    return this.namespace + key;
  }

  /**
   * Runs one command: any failure of Redis is the store being unavailable. A command that timed
   * out drops the connection and opens a new one, since a connection whose peer stopped answering
   * may stay open for hours and every command on it would wait out its timeout.
   */
  private async run<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    try {
      return await command(this.client);
    } catch (err) {
      if (err instanceof Error && /timed out/i.test(err.message) && this.client.status === 'ready') {
        this.client.disconnect(true);
      }
      throw unavailable(err);
    }
  }

  /** True when Redis answers a PING within the command timeout. */
  async ping(): Promise<boolean> {
    return this.run((c) => c.ping()).then(
      (answer) => answer === 'PONG',
      () => false,
    );
  }

  async get(key: string): Promise<string | null> {
    return this.run((c) => c.get(this.k(key)));
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.run((c) => c.set(this.k(key), value, 'PX', ttl(ttlMs)));
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.run((c) => c.set(this.k(key), value, 'PX', ttl(ttlMs), 'NX'))) === 'OK';
  }

  async replace(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.run((c) => c.set(this.k(key), value, 'PX', ttl(ttlMs), 'XX'))) === 'OK';
  }

  async consume(key: string): Promise<string | null> {
    return this.run((c) => c.getdel(this.k(key)));
  }

  async delete(key: string): Promise<void> {
    await this.run((c) => c.del(this.k(key)));
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    const n = await this.run((c) => c.eval(INCREMENT_SCRIPT, 1, this.k(key), String(ttl(ttlMs))));
    return Number(n);
  }

  async deletePrefix(prefix: string): Promise<number> {
    let removed = 0;
    for await (const batch of this.scan(prefix)) {
      if (batch.length > 0) removed += await this.run((c) => c.unlink(...batch));
    }
    return removed;
  }

  async keys(prefix: string): Promise<string[]> {
    const out = new Set<string>();
    for await (const batch of this.scan(prefix)) for (const k of batch) out.add(k.slice(this.namespace.length));
    return [...out].sort();
  }

  /** Full Redis keys under namespace+prefix, a batch at a time (SCAN may repeat keys). */
  private async *scan(prefix: string): AsyncGenerator<string[]> {
    const match = `${globEscape(this.namespace + prefix)}*`;
    let cursor = '0';
    do {
      const [next, batch] = await this.run((c) => c.scan(cursor, 'MATCH', match, 'COUNT', SCAN_BATCH));
      cursor = next;
      yield batch;
    } while (cursor !== '0');
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** Escapes Redis glob characters so a prefix matches literally. */
function globEscape(s: string): string {
  return s.replace(/[*?[\]\\^-]/g, (c) => `\\${c}`);
}

function redactRedis(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
