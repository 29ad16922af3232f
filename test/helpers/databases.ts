/**
 * Database targets for tests: SQLite always, and PostgreSQL, MariaDB (MySQL when configured
 * separately) and MongoDB when reachable. Each target is a FRESH database of its own, so test
 * files running in parallel never share tables; `dispose()` drops it.
 *
 * With LATCHKEY_REQUIRE_SERVICES=1 an unreachable PostgreSQL, MariaDB or Redis is an error
 * instead of a skipped target (CI runs that way). Addresses can be overridden with
 * LATCHKEY_POSTGRES_URL, LATCHKEY_MARIADB_URL, LATCHKEY_MYSQL_URL, LATCHKEY_MONGODB_URL and
 * LATCHKEY_REDIS_URL (admin URLs; the database part is the one to connect to for creating others).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import type { DatabaseType } from '../../core/storage.js';

export type DbName = 'sqlite' | 'postgres' | 'mariadb' | 'mysql' | 'mongodb';

export interface DbTarget {
  /** Which server this is (also a readable test name). */
  readonly name: DbName;
  readonly type: DatabaseType;
  readonly isSql: boolean;
  /** Config flags pointing at this target's own database: `database-type`, `database-url`. */
  readonly flags: Record<string, string>;
  /** Drops the database (or deletes the SQLite file); safe to call twice. */
  dispose(): Promise<void>;
}

export interface DatabaseTargetOptions {
  /** Restrict to these targets (others are not probed). */
  only?: readonly DbName[];
  /** Leave out MongoDB (for tests of SQL-only features). */
  sqlOnly?: boolean;
}

export const requireServices = process.env.LATCHKEY_REQUIRE_SERVICES === '1';

const POSTGRES_URL = process.env.LATCHKEY_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const MARIADB_URL = process.env.LATCHKEY_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/test';
const MYSQL_URL = process.env.LATCHKEY_MYSQL_URL;
const MONGODB_URL = process.env.LATCHKEY_MONGODB_URL;
const REDIS_URL = process.env.LATCHKEY_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The reachable targets, each with a fresh database. */
export async function databaseTargets(options: DatabaseTargetOptions = {}): Promise<DbTarget[]> {
  const wanted = (n: DbName) =>
    (options.only ? options.only.includes(n) : true) && !(options.sqlOnly && n === 'mongodb');
  const makers: Promise<DbTarget | null>[] = [];
  if (wanted('sqlite')) makers.push(sqliteTarget());
  if (wanted('postgres')) makers.push(serverTarget('postgres', POSTGRES_URL));
  if (wanted('mariadb')) makers.push(serverTarget('mariadb', MARIADB_URL));
  if (wanted('mysql') && MYSQL_URL) makers.push(serverTarget('mysql', MYSQL_URL));
  if (wanted('mongodb') && MONGODB_URL) makers.push(serverTarget('mongodb', MONGODB_URL));
  const settled = await Promise.allSettled(makers);
  const targets = settled.flatMap((s) => (s.status === 'fulfilled' && s.value ? [s.value] : []));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    await Promise.all(targets.map((t) => t.dispose()));
    throw failure.reason;
  }
  return targets;
}

/** One target by name; null when it is not reachable (throws instead under LATCHKEY_REQUIRE_SERVICES=1). */
export async function databaseTarget(name: DbName): Promise<DbTarget | null> {
  switch (name) {
    case 'sqlite':
      return sqliteTarget();
    case 'postgres':
      return serverTarget('postgres', POSTGRES_URL);
    case 'mariadb':
      return serverTarget('mariadb', MARIADB_URL);
    case 'mysql':
      return MYSQL_URL ? serverTarget('mysql', MYSQL_URL) : null;
    case 'mongodb':
      return MONGODB_URL ? serverTarget('mongodb', MONGODB_URL) : null;
  }
}

/** A SQLite file in a fresh temporary folder. */
export async function sqliteTarget(): Promise<DbTarget> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-test-'));
  return {
    name: 'sqlite',
    type: 'sqlite',
    isSql: true,
    flags: { 'database-type': 'sqlite', 'database-url': join(dir, 'latchkey.db') },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/** True when Redis answers on its port (throws instead under LATCHKEY_REQUIRE_SERVICES=1). */
export async function redisAvailable(): Promise<boolean> {
  const u = new URL(REDIS_URL);
  const up = await portOpen(u.hostname, Number(u.port || 6379));
  if (!up && requireServices) throw new Error(`LATCHKEY_REQUIRE_SERVICES=1 but Redis is not reachable at ${REDIS_URL}`);
  return up;
}

/**
 * A Redis URL whose keys live under a namespace of their own (the `prefix` query parameter the
 * redis memory store reads), so parallel tests never see each other's keys.
 */
export function freshRedisUrl(): string {
  const u = new URL(REDIS_URL);
  u.searchParams.set('prefix', `lktest:${Date.now().toString(36)}${randomBytes(4).toString('hex')}:`);
  return u.toString();
}

async function serverTarget(name: Exclude<DbName, 'sqlite'>, adminUrl: string): Promise<DbTarget | null> {
  const admin = new URL(adminUrl);
  const defaultPort = name === 'postgres' ? 5432 : name === 'mongodb' ? 27017 : 3306;
  if (!admin.protocol.startsWith('mongodb+srv')) {
    const up = await portOpen(admin.hostname, Number(admin.port || defaultPort));
    if (!up) {
      if (requireServices) throw new Error(`LATCHKEY_REQUIRE_SERVICES=1 but ${name} is not reachable at ${admin.host}`);
      return null;
    }
  }
  const dbName = testDatabaseName();
  await adminRun(name, adminUrl, async (orm) => {
    if (name === 'mongodb') return; // MongoDB creates databases on first write.
    if (!swept.has(name)) {
      swept.add(name);
      await sweepAbandoned(name, orm);
    }
    const q = name === 'postgres' ? `"${dbName}"` : `\`${dbName}\``;
    const charset = name === 'postgres' ? '' : ' character set utf8mb4 collate utf8mb4_unicode_ci';
    await orm.em.getConnection().execute(`create database ${q}${charset}`, [], 'run');
  });
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  let disposed = false;
  return {
    name,
    type: name,
    isSql: name !== 'mongodb',
    flags: { 'database-type': name, 'database-url': url.toString() },
    dispose: async () => {
      if (disposed) return;
      disposed = true;
      await adminRun(name, adminUrl, async (orm) => {
        if (name === 'mongodb') {
          const conn = orm.em.getConnection() as unknown as {
            getClient(): { db(n: string): { dropDatabase(): Promise<unknown> } };
          };
          await conn.getClient().db(dbName).dropDatabase();
          return;
        }
        const sql =
          name === 'postgres'
            ? `drop database if exists "${dbName}" with (force)`
            : `drop database if exists \`${dbName}\``;
        await orm.em.getConnection().execute(sql, [], 'run');
      });
    },
  };
}

/** Test databases older than this were left by a test process that died before `dispose()`. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;
/** Servers already swept by this test process (the first target created on each sweeps it). */
const swept = new Set<string>();

/** The name a test database gets; its base-36 stamp is what the sweep reads. */
export const testDatabaseName = (createdAtMs = Date.now()) =>
  `lk_test_${createdAtMs.toString(36)}_${randomBytes(4).toString('hex')}`;

/** Sweeps one server now (tests of the sweep itself); targets do this once per process. */
export async function sweepAbandonedDatabases(name: 'postgres' | 'mariadb'): Promise<void> {
  await adminRun(name, name === 'postgres' ? POSTGRES_URL : MARIADB_URL, (orm) => sweepAbandoned(name, orm));
}

/**
 * Drops `lk_test_*` databases whose creation time (the base-36 stamp in the name) is more than an
 * hour old: a crashed or timed-out test file never reaches its teardown, and nothing else would
 * remove its database. A concurrent sweep dropping the same database is harmless (`if exists`).
 */
async function sweepAbandoned(name: 'postgres' | 'mariadb' | 'mysql', orm: MikroORM): Promise<void> {
  const conn = orm.em.getConnection();
  const listSql =
    name === 'postgres'
      ? `select datname as name from pg_database where datname like 'lk\\_test\\_%'`
      : `select schema_name as name from information_schema.schemata where schema_name like 'lk\\_test\\_%'`;
  const rows = (await conn.execute(listSql, [], 'all')) as { name: string }[];
  const cutoff = Date.now() - ABANDONED_AFTER_MS;
  for (const { name: db } of rows) {
    const created = Number.parseInt(db.split('_')[2] ?? '', 36);
    if (!Number.isFinite(created) || created > cutoff) continue;
    const sql =
      name === 'postgres' ? `drop database if exists "${db}" with (force)` : `drop database if exists \`${db}\``;
    await conn.execute(sql, [], 'run').catch(() => undefined);
  }
}

/** Runs statements on the admin database through MikroORM (the drivers the project already uses). */
async function adminRun(
  name: Exclude<DbName, 'sqlite'>,
  url: string,
  fn: (orm: MikroORM) => Promise<void>,
): Promise<void> {
  const options = await adminOptions(name, url);
  const orm = await MikroORM.init({
    ...options,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    metadataCache: { enabled: false },
    ensureDatabase: false,
    allowGlobalContext: true,
    logger: () => {},
  });
  try {
    await fn(orm);
  } finally {
    await orm.close(true);
  }
}

async function adminOptions(name: Exclude<DbName, 'sqlite'>, url: string): Promise<Options> {
  const dbName = decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || undefined;
  switch (name) {
    case 'postgres':
      return {
        driver: (await import('@mikro-orm/postgresql')).PostgreSqlDriver,
        clientUrl: url,
        dbName: dbName ?? 'postgres',
      };
    case 'mariadb':
      return { driver: (await import('@mikro-orm/mariadb')).MariaDbDriver, clientUrl: url, dbName };
    case 'mysql':
      return { driver: (await import('@mikro-orm/mysql')).MySqlDriver, clientUrl: url, dbName };
    case 'mongodb':
      return { driver: (await import('@mikro-orm/mongodb')).MongoDriver, clientUrl: url, dbName: dbName ?? 'admin' };
  }
}

function portOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
