/**
 * MikroORM options for each database type. Drivers are imported on demand so a SQLite build
 * never loads the PostgreSQL, MySQL or MongoDB clients.
 */
import { connect } from 'node:net';
import type { Options } from '@mikro-orm/core';
import { watchAnswers, watchedSocket } from './answer-watch.js';
import type { DatabaseSettings } from './settings.js';
import type { SqliteBusyGuard } from './sqlite-busy.js';

/** How long a connection attempt may take before boot (or a ping) gives up. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** How long a SQLite write waits for another process's lock. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;
/** `--database-timeout-ms` when not given. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 2_000;
/** Most connections one process holds to a database server. */
const POOL_MAX = 10;

/**
 * `busy` (SQLite and libSQL only): replaces a connection on which a statement met SQLITE_BUSY
 * (sqlite-busy.ts has why).
 */
export async function driverOptions(settings: DatabaseSettings, busy?: SqliteBusyGuard): Promise<Options> {
  switch (settings.type) {
    case 'sqlite':
    case 'libsql': {
      const { LibSqlDriver } = await import('@mikro-orm/libsql');
      return {
        driver: LibSqlDriver,
        dbName: settings.url,
        password: settings.authToken,
        // One connection: SQLite has a single writer, and `:memory:` is per connection.
        pool: { min: 1, max: 1 },
        driverOptions: {
          // Wait for another process's write lock instead of failing with SQLITE_BUSY at once.
          connection: { timeout: SQLITE_BUSY_TIMEOUT_MS },
          ...(busy ? { pool: busy.poolOptions() } : {}),
        },
      };
    }
    case 'postgres': {
      const { PostgreSqlDriver } = await import('@mikro-orm/postgresql');
      return {
        driver: PostgreSqlDriver,
        clientUrl: settings.url,
        dbName: dbNameOf(settings.url),
        pool: { min: 0, max: POOL_MAX, acquireTimeoutMillis: CONNECT_TIMEOUT_MS * 2 },
        driverOptions: { connection: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS } },
      };
    }
    case 'mysql': {
      const { MySqlDriver } = await import('@mikro-orm/mysql');
      return {
        driver: MySqlDriver,
        clientUrl: settings.url,
        dbName: dbNameOf(settings.url),
        pool: { min: 0, max: POOL_MAX, acquireTimeoutMillis: CONNECT_TIMEOUT_MS * 2 },
        driverOptions: { connection: { connectTimeout: CONNECT_TIMEOUT_MS } },
      };
    }
    case 'mariadb': {
      const { MariaDbDriver } = await import('@mikro-orm/mariadb');
      return {
        driver: MariaDbDriver,
        clientUrl: settings.url,
        dbName: dbNameOf(settings.url),
        pool: { min: 0, max: POOL_MAX, acquireTimeoutMillis: CONNECT_TIMEOUT_MS * 2 },
        driverOptions: { connection: { connectTimeout: CONNECT_TIMEOUT_MS } },
      };
    }
    case 'mongodb': {
      const { MongoDriver } = await import('@mikro-orm/mongodb');
      return {
        driver: MongoDriver,
        clientUrl: settings.url,
        dbName: dbNameOf(settings.url) || 'latchkey',
        driverOptions: { serverSelectionTimeoutMS: CONNECT_TIMEOUT_MS, connectTimeoutMS: CONNECT_TIMEOUT_MS },
      };
    }
  }
}

/** The longest wait for a free pooled connection: 2.5 times `--database-timeout-ms`, at least 5 s. */
export const poolWaitMs = (timeoutMs: number): number => Math.max(5_000, Math.round(timeoutMs * 2.5));

/**
 * The options a database server's pool serves requests with, applied once the schema is up to
 * date (boot keeps the driver's defaults: a schema change may legitimately run long). Every wait a
 * request can meet is bounded: a new connection and the answer to a query by
 * `--database-timeout-ms` (a connection whose query got no answer is destroyed and never handed
 * out again, answer-watch.ts), a free pool connection by `poolWaitMs`. A stalled database then
 * fails a request with a 503 within about that time, or twice it when a pooled connection was
 * handed over just before it stalled. Undefined for SQLite and MongoDB, whose options stay as they are.
 */
export function servingOptions(settings: DatabaseSettings): Partial<Options> | undefined {
  const ms = settings.timeoutMs;
  // A request waiting for a free connection waits longer: under load the pool is busy while the
  // database answers (a 2 s wait failed requests in a 50-connection soak). A stalled database
  // still frees the pool within `ms`: its connections are destroyed and new ones fail to connect.
  const pool = { min: 0, max: POOL_MAX, acquireTimeoutMillis: poolWaitMs(ms), createTimeoutMillis: ms };
  switch (settings.type) {
    case 'postgres':
      return {
        pool,
        driverOptions: {
          connection: {
            connectionTimeoutMillis: ms,
            // Client-side limit on every query (it also holds under TLS, where the socket is not watched).
            query_timeout: ms,
            stream: () => watchedSocket(ms),
          },
        },
      };
    case 'mariadb': {
      const { hostname, port } = new URL(settings.url);
      const host = hostname.replace(/^\[|\]$/g, '');
      return {
        pool,
        driverOptions: {
          connection: {
            connectTimeout: ms,
            stream: () => watchAnswers(connect(Number(port) || 3306, host), ms),
          },
        },
      };
    }
    case 'mysql':
      return { pool, driverOptions: { connection: { connectTimeout: ms } } };
    default:
      return undefined;
  }
}

function dbNameOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}
