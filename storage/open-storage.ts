/**
 * Opens the main database: picks the MikroORM driver for `--database-type`,
 * registers the plugins' entities plus the storage's own, and brings the schema up to date
 * without dropping anything that may hold user data.
 */
import { mkdir } from 'node:fs/promises';
import { MikroORM, type EntityManager } from '@mikro-orm/core';
import type { Config } from '../core/config.js';
import type { DatabaseType, EntityDefinition, StatementRunner, Storage, StorageOpener } from '../core/storage.js';
import { driverOptions, servingOptions } from './drivers.js';
import { SqliteBusyGuard } from './sqlite-busy.js';
import { statementRunner } from './sqlite-statements.js';
import { SqliteChangeStamp } from './sqlite-change-stamp.js';
import { WalSync } from './sqlite-wal-sync.js';
import { memoryEntryEntity } from './entities/memory-entry.js';
import { syncSchema } from './schema/sync.js';
import { redact, resolveDatabaseSettings, type DatabaseSettings } from './settings.js';

const PING_TIMEOUT_MS = 2_000;

class MikroStorage implements Storage {
  readonly isSql: boolean;
  readonly statements: StatementRunner;
  readonly changeStamp: SqliteChangeStamp | undefined;
  /** Relaxed writes' flush (a SQLite file in WAL mode only). */
  readonly walSync: WalSync | undefined;
  private closed = false;

  constructor(
    readonly type: DatabaseType,
    readonly orm: MikroORM,
    /** A local SQLite file in WAL mode, or undefined. */
    file: string | undefined,
    /** SQLite and libSQL: replaces a connection a statement met SQLITE_BUSY on. */
    busy: SqliteBusyGuard | undefined,
  ) {
    this.isSql = type !== 'mongodb';
    this.walSync = file === undefined ? undefined : new WalSync(`${file}-wal`);
    this.statements = statementRunner(orm, type === 'sqlite' || type === 'libsql', this.walSync, busy);
    this.changeStamp = file === undefined ? undefined : new SqliteChangeStamp(file);
  }

  em(): EntityManager {
    return this.orm.em.fork();
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
      timer.unref();
    });
    const check = this.orm
      .checkConnection()
      .then((r) => r.ok)
      .catch(() => false);
    try {
      return await Promise.race([check, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.walSync?.close();
    this.changeStamp?.release();
    await this.orm.close(true);
  }
}

export const openStorage: StorageOpener = async (config: Config, entities: EntityDefinition[]) => {
  const settings = resolveDatabaseSettings(config);
  if (settings.folder) await mkdir(settings.folder, { recursive: true });
  const busy = settings.type === 'sqlite' || settings.type === 'libsql' ? new SqliteBusyGuard() : undefined;
  const { orm, wal } = await connect(settings, [...entities, memoryEntryEntity(settings.type)], busy);
  try {
    await syncSchema(orm, settings.type);
  } catch (err) {
    await orm.close(true).catch(() => {});
    throw wrap(settings, 'could not bring the schema up to date', err);
  }
  const serving = servingOptions(settings);
  if (serving) await orm.reconnect(serving);
  return new MikroStorage(settings.type, orm, settings.folder && wal ? settings.url : undefined, busy);
};

/** The open ORM, and whether a SQLite file is in WAL mode (what the change stamp reads needs). */
async function connect(
  settings: DatabaseSettings,
  entities: EntityDefinition[],
  busy: SqliteBusyGuard | undefined,
): Promise<{ orm: MikroORM; wal: boolean }> {
  const options = await driverOptions(settings, busy);
  let orm: MikroORM;
  try {
    orm = await MikroORM.init({
      ...options,
      entities,
      discovery: { warnWhenNoEntities: false, checkDuplicateTableNames: true },
      metadataCache: { enabled: false },
      forceUtcTimezone: true,
      allowGlobalContext: false,
      // Quiet unless debugging: MikroORM logs through the server's logger only when asked.
      debug: settings.debug,
      logger: settings.debug ? (message: string) => console.error(message) : () => {},
    });
  } catch (err) {
    throw wrap(settings, 'could not open the database', err);
  }
  busy?.watch((orm.em.getConnection() as unknown as { getKnex(): Parameters<SqliteBusyGuard['watch']>[0] }).getKnex());
  const status = await orm.checkConnection().catch((err: unknown) => ({ ok: false, reason: String(err) }));
  if (!status.ok) {
    await orm.close(true).catch(() => {});
    throw wrap(settings, 'could not reach the database', new Error(status.reason));
  }
  let wal = false;
  if (settings.folder) {
    // Write-ahead logging lets readers in other processes go on while one process writes.
    const mode = await orm.em
      .getConnection()
      .execute<{ journal_mode?: string }[]>('pragma journal_mode = wal', [], 'all');
    wal = String(mode[0]?.journal_mode ?? '').toLowerCase() === 'wal';
  }
  return { orm, wal };
}

function wrap(settings: DatabaseSettings, what: string, err: unknown): Error {
  const reason = err instanceof Error ? err.message : String(err);
  return new Error(`${what} (${settings.type} at ${redact(settings.url)}): ${reason}`, { cause: err });
}
