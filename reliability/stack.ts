/**
 * What one server of the harness runs on: a fresh database (SQLite file, or a database of its
 * own on the local PostgreSQL or MariaDB), a Redis namespace of its own, and a FaultProxy in front
 * of each network dependency so a case can refuse or stall it.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisMemoryStore } from '../storage/memory/redis.js';
import { databaseTarget, freshRedisUrl, type DbTarget } from '../test/helpers/databases.js';
import { FaultProxy } from '../test/helpers/fault-proxy.js';
import type { Flags } from './server-process.js';

export type DbName = 'sqlite' | 'postgres' | 'mariadb';

export interface Stack {
  db: DbName;
  /** The proxy in front of the database (PostgreSQL and MariaDB). */
  dbProxy: FaultProxy | undefined;
  /** The proxy in front of Redis, when the stack has Redis. */
  redisProxy: FaultProxy | undefined;
  /** Flags for the server: database and, when asked, `--redis-url`, both through the proxies. */
  flags: Flags;
  /** A folder for the server's log, kept after the run (its path is printed). */
  dir: string;
  dispose(): Promise<void>;
}

export async function openStack(
  db: DbName,
  options: {
    redis: boolean;
    label: string;
    /** Connect directly, without proxies (default true). */ proxies?: boolean;
  },
): Promise<Stack> {
  const proxies = options.proxies ?? true;
  const dir = await mkdtemp(join(tmpdir(), `latchkey-reliability-${options.label}-`));
  const target: DbTarget | null = await databaseTarget(db);
  if (!target) throw new Error(`${db} is not reachable`);
  const flags: Flags = { ...target.flags };
  let dbProxy: FaultProxy | undefined;
  if (db !== 'sqlite' && proxies) {
    const url = new URL(target.flags['database-url']);
    dbProxy = await FaultProxy.start(url.hostname, Number(url.port || (db === 'postgres' ? 5432 : 3306)));
    url.host = dbProxy.address;
    flags['database-url'] = url.toString();
  }
  let redisProxy: FaultProxy | undefined;
  let direct: string | undefined;
  if (options.redis) {
    direct = freshRedisUrl();
    flags['redis-url'] = direct;
  }
  if (direct && proxies) {
    const url = new URL(direct);
    redisProxy = await FaultProxy.start(url.hostname, Number(url.port || 6379));
    url.host = redisProxy.address;
    flags['redis-url'] = url.toString();
  }
  return {
    db,
    dbProxy,
    redisProxy,
    flags,
    dir,
    async dispose() {
      await dbProxy?.close();
      await redisProxy?.close();
      if (direct) {
        const store = await RedisMemoryStore.open(direct).catch(() => undefined);
        await store?.deletePrefix('').catch(() => 0);
        await store?.close();
      }
      await target.dispose();
    },
  };
}
