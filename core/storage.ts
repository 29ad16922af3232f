/**
 * What the kernel needs from the storage layer (implemented in storage/, which depends on core,
 * never the other way round).
 */
import type { AnyEntity, EntityManager, EntitySchema, MikroORM } from '@mikro-orm/core';
import type { Config } from './config.js';
import type { MemoryStore } from './memory-store.js';

export const DATABASE_TYPES = ['sqlite', 'libsql', 'postgres', 'mysql', 'mariadb', 'mongodb'] as const;
export type DatabaseType = (typeof DATABASE_TYPES)[number];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EntityDefinition = EntitySchema<any, any>;

export type StatementMethod = 'get' | 'all' | 'run';
export type StatementResult<M extends StatementMethod> = M extends 'get'
  ? Record<string, unknown> | undefined
  : M extends 'all'
    ? Record<string, unknown>[]
    : { affectedRows: number };

/**
 * Fixed SQL text with `?` parameters, run as a kept prepared statement where the driver allows.
 * Rows are the driver's objects: the selected columns, possibly with driver metadata fields.
 */
export interface StatementRunner {
  run<M extends StatementMethod>(
    sql: string,
    params: unknown[],
    method: M,
    options?: StatementOptions,
  ): Promise<StatementResult<M>>;
}

export interface StatementOptions {
  /**
   * A write whose loss in an operating-system crash or power cut would cost availability, never
   * security (a new session: its user signs in again). On a SQLite file it commits without
   * waiting for the disk and reaches it within a second (storage/sqlite-wal-sync.ts); everywhere
   * else it is an ordinary write. A process crash loses nothing either way.
   */
  relaxed?: boolean;
  /**
   * Told right before and right after the statement runs, on the connection that runs it, with
   * nothing of this process between the two (the SQLite runner only: its statements are
   * synchronous). The memory store reads the change stamp there (storage/sqlite-change-stamp.ts,
   * "Own writes"): read around an `await`, another request's write could come between and the
   * write no longer counted as the only commit.
   */
  around?: StatementAround;
}

export interface StatementAround {
  before(): void;
  /** `affectedRows`: what the statement reported (0 for a read). */
  after(affectedRows: number): void;
}

/**
 * The most bytes a text column holds on every database: TEXT is 65,535 bytes on MySQL and
 * MariaDB, where more is a database error (a 500). Values stored as TEXT are bounded by it.
 */
export const MAX_TEXT_BYTES = 65_535;

export interface Storage {
  readonly type: DatabaseType;
  /** True for the SQL family (drives FGA availability). */
  readonly isSql: boolean;
  readonly orm: MikroORM;
  /** A fresh EntityManager fork for one unit of work. */
  em(): EntityManager;
  /** Hot, fixed SQL statements (SQL databases only; see storage/sqlite-statements.ts). */
  readonly statements: StatementRunner;
  /** True when the database answers a trivial query (used by /healthz). */
  ping(): Promise<boolean>;
  /**
   * SQLite files only: tells whether anything was committed since an earlier look, so hot reads
   * may be kept in process (storage/sqlite-change-stamp.ts has the rules).
   */
  readonly changeStamp?: ChangeStamp;
  close(): Promise<void>;
}

export interface ChangeStamp {
  /** The same number as at an earlier call only if nothing was committed in between, else a larger one; undefined: cannot tell. */
  current(): number | undefined;
  /**
   * `current()`, read once for every caller that asked before the read: one file read serves
   * every request that arrived before it (storage/sqlite-change-stamp.ts, "Reads shared").
   */
  shared(): Promise<number | undefined>;
  /** A commit made by this process is done (its writers call this): kept reads are stale. */
  noteWrite(): void;
  /**
   * Around one own autocommit statement writing one key (storage/sqlite-change-stamp.ts, "Own
   * writes"): `afterOwnWrite` is true when that statement was the only commit since the mark,
   * and then the registered readers (`onOwnWrite`) have dropped that key alone; on false the
   * caller calls `noteWrite`. `key` undefined: the statement only added rows to a table that no
   * kept read comes from (the audit log), so no reader has anything to drop.
   */
  beforeOwnWrite(): object | undefined;
  afterOwnWrite(mark: object | undefined, changedRows: number, key: string | undefined): boolean;
  onOwnWrite(forget: (key: string) => void): () => void;
}

export type StorageOpener = (config: Config, entities: EntityDefinition[]) => Promise<Storage>;
export type MemoryStoreOpener = (config: Config, storage: Storage) => Promise<MemoryStore>;

export type { AnyEntity };
