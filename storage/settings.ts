/**
 * Reads the database flags (declared by the server plugin) into
 * one resolved description of where the data lives. Bad combinations are refused here with a
 * message that names the flag, before any connection is tried.
 */
import { dirname, resolve } from 'node:path';
import type { Config } from '../core/config.js';
import { DATABASE_TYPES, type DatabaseType } from '../core/storage.js';
import { DEFAULT_DATABASE_TIMEOUT_MS } from './drivers.js';

export interface DatabaseSettings {
  type: DatabaseType;
  /** Connection URL for server databases; for sqlite/libsql files the path (or `:memory:`). */
  url: string;
  /** File databases: the folder to create before opening. */
  folder?: string;
  /** libsql remote: the auth token taken from the URL. */
  authToken?: string;
  debug: boolean;
  /** Database servers: the bound on each wait for the database while serving (drivers.ts). */
  timeoutMs: number;
}

const DEFAULT_SQLITE_PATH = 'data/latchkey.db';
const DEFAULT_PORTS: Record<string, number> = { postgres: 5432, mysql: 3306, mariadb: 3306, mongodb: 27017 };
const URL_SCHEMES: Record<string, string> = {
  postgres: 'postgresql',
  mysql: 'mysql',
  mariadb: 'mysql',
  mongodb: 'mongodb',
};

export class StorageConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageConfigError';
  }
}

export function isDatabaseType(value: string): value is DatabaseType {
  return (DATABASE_TYPES as readonly string[]).includes(value);
}

export function resolveDatabaseSettings(config: Config): DatabaseSettings {
  const type = config.string('database-type', 'sqlite').trim().toLowerCase();
  if (!isDatabaseType(type)) {
    throw new StorageConfigError(`unsupported --database-type "${type}": expected one of ${DATABASE_TYPES.join(', ')}`);
  }
  const debug = config.bool('debug') || config.string('log-level', '') === 'debug';
  const timeoutMs = config.number('database-timeout-ms', DEFAULT_DATABASE_TIMEOUT_MS);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100) {
    throw new StorageConfigError(`--database-timeout-ms must be a whole number of milliseconds, at least 100`);
  }
  if (type === 'sqlite' || type === 'libsql') return { ...fileSettings(type, config, debug), timeoutMs };
  return { type, url: serverUrl(type, config), debug, timeoutMs };
}

function fileSettings(type: 'sqlite' | 'libsql', config: Config, debug: boolean): Omit<DatabaseSettings, 'timeoutMs'> {
  let url =
    config.string('database-url', '').trim() || config.string('database-name', '').trim() || DEFAULT_SQLITE_PATH;
  let authToken: string | undefined;
  if (/^(libsql|https?|wss?):\/\//i.test(url)) {
    if (type === 'sqlite') {
      throw new StorageConfigError(
        `--database-url "${redact(url)}" is a remote URL: use --database-type libsql for it`,
      );
    }
    const parsed = new URL(url);
    authToken = parsed.searchParams.get('authToken') ?? (config.string('database-password', '') || undefined);
    parsed.searchParams.delete('authToken');
    return { type, url: parsed.toString(), authToken, debug };
  }
  // `sqlite:` / `file:` prefixes are accepted for a local file; the rest is a path.
  url = url.replace(/^(sqlite|file):(\/\/)?/i, '');
  if (url === ':memory:' || url === '') return { type, url: ':memory:', debug };
  const path = resolve(url);
  return { type, url: path, folder: dirname(path), debug };
}

function serverUrl(type: DatabaseType, config: Config): string {
  const given = config.string('database-url', '').trim();
  if (given) {
    let parsed: URL;
    try {
      parsed = new URL(given);
    } catch {
      throw new StorageConfigError(`--database-url is not a valid URL for --database-type ${type}`);
    }
    const scheme = parsed.protocol.replace(/:$/, '');
    const expected: Record<string, string[]> = {
      postgres: ['postgres', 'postgresql'],
      mysql: ['mysql', 'mysql2'],
      mariadb: ['mysql', 'mariadb'],
      mongodb: ['mongodb', 'mongodb+srv'],
    };
    if (!expected[type].includes(scheme)) {
      throw new StorageConfigError(
        `--database-url scheme "${scheme}:" does not match --database-type ${type} (expected ${expected[type].join(' or ')})`,
      );
    }
    if (type === 'mariadb' && scheme === 'mariadb') parsed.protocol = 'mysql:';
    return parsed.toString();
  }
  const host = config.string('database-host', '').trim();
  const name = config.string('database-name', '').trim();
  if (!host || !name) {
    throw new StorageConfigError(
      `--database-type ${type} needs --database-url, or --database-host and --database-name`,
    );
  }
  const port = config.number('database-port', DEFAULT_PORTS[type]);
  const user = config.string('database-username', '');
  const password = config.string('database-password', '');
  const auth = user ? `${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${URL_SCHEMES[type]}://${auth}${h}:${port}/${encodeURIComponent(name)}`;
}

/** The URL without its password, for messages and logs. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    u.searchParams.delete('authToken');
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
