/**
 * MikroORM options for each database type. Drivers are imported on demand so a SQLite build
 * never loads the PostgreSQL, MySQL or MongoDB clients.
 */
import type { Options } from '@mikro-orm/core';
import type { DatabaseSettings } from './settings.js';

/** How long a connection attempt may take before boot (or a ping) gives up. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** How long a SQLite write waits for another process's lock. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

export async function driverOptions(settings: DatabaseSettings): Promise<Options> {
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
        // Wait for another process's write lock instead of failing with SQLITE_BUSY at once.
        driverOptions: { connection: { timeout: SQLITE_BUSY_TIMEOUT_MS } },
      };
    }
    case 'postgres': {
      const { PostgreSqlDriver } = await import('@mikro-orm/postgresql');
      return {
        driver: PostgreSqlDriver,
        clientUrl: settings.url,
        dbName: dbNameOf(settings.url),
        pool: { min: 0, max: 10, acquireTimeoutMillis: CONNECT_TIMEOUT_MS * 2 },
        driverOptions: { connection: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS } },
      };
    }
    case 'mysql': {
      const { MySqlDriver } = await import('@mikro-orm/mysql');
      return {
        driver: MySqlDriver,
        clientUrl: settings.url,
        dbName: dbNameOf(settings.url),
        pool: { min: 0, max: 10, acquireTimeoutMillis: CONNECT_TIMEOUT_MS * 2 },
        driverOptions: { connection: { connectTimeout: CONNECT_TIMEOUT_MS } },
      };
    }
    case 'mariadb': {
      const { MariaDbDriver } = await import('@mikro-orm/mariadb');
      return {
        driver: MariaDbDriver,
        clientUrl: settings.url,
        dbName: dbNameOf(settings.url),
        pool: { min: 0, max: 10, acquireTimeoutMillis: CONNECT_TIMEOUT_MS * 2 },
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

function dbNameOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}
