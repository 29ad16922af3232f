/**
 * The database memory store: one table (`latchkey_memory`: key primary key,
 * value, expires_at in Unix ms), durable across restarts and shared by every process using the
 * same database. Atomicity comes from the database, never from this process:
 *  - setIfAbsent: insert-or-ignore on the primary key; exactly one concurrent insert wins.
 *  - consume: a conditional delete (`key`, `value` and `expires_at` as read); only the caller
 *    whose delete removed the row gets the value.
 *  - increment: a single UPDATE ... value + 1 on the live row (RETURNING where the database has
 *    it, otherwise UPDATE then SELECT inside one transaction, which holds the row lock), and an
 *    insert-or-ignore of "1" that starts the window. The expiry is written only by that insert,
 *    so later increments never extend a fixed window.
 * This is the only place with database-specific SQL for the memory store.
 */
import type { AbstractSqlConnection, Knex } from '@mikro-orm/knex';
import type { MemoryStore } from '../../core/memory-store.js';
import type { DatabaseType, StatementAround, StatementOptions, Storage } from '../../core/storage.js';
import { MEMORY_KEY_MAX, MEMORY_TABLE } from '../entities/memory-entry.js';
import { runOwnWrite } from '../own-write.js';
import { ttl } from './process.js';

const SWEEP_INTERVAL_MS = 60_000;
/**
 * Reads kept in process (see `get`): at most this many keys; the oldest goes first. Sized for
 * the sessions of the active users of one server (~0.5 KB each).
 */
export const READ_CACHE_MAX = 10_000;
/** Retries when a concurrent writer changed the row between our two statements. */
const MAX_ATTEMPTS = 50;

interface Row {
  key: string;
  value: string;
  expires_at: number | string;
}

/** A read kept in process: the value (null: no live row) and when the row expires. */
interface CachedRead {
  value: string | null;
  expiresAt: number;
}

interface RunResult {
  affectedRows: number;
  rows?: Row[];
}

/** The values a hot statement takes, by name (see `statement`). */
interface Params {
  key?: string;
  value?: string;
  expiresAt?: number;
  now?: number;
}
type ParamName = keyof Params;
/** Stand-ins given to knex once, recognised again in the compiled bindings. */
const SENTINELS: Record<ParamName, string | number> = {
  key: '\u0000key',
  value: '\u0000value',
  expiresAt: -1_000_001,
  now: -1_000_002,
};

interface Statement {
  sql: string;
  params: ParamName[];
}

export interface DatabaseMemoryOptions {
  now?: () => number;
  sweepIntervalMs?: number;
}

export class DatabaseMemoryStore implements MemoryStore {
  readonly backend = 'database' as const;
  private readonly conn: AbstractSqlConnection;
  private readonly storage: Storage;
  private readonly type: DatabaseType;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  private readonly statements = new Map<string, Statement>();
  /** Reads of `get` by key, all made under the change stamp `readsStamp` (SQLite files only; see `get`). */
  private readonly reads = new Map<string, CachedRead>();
  private readsStamp = -1;
  /**
   * Own writes that left the other kept reads good (see `ownWrite`), counted, and when each key
   * was last written that way: a read of a key that was in flight while such a write of it ran
   * is not kept, since it may have read the row before the write. At most READ_CACHE_MAX keys are
   * remembered; past that the memory starts afresh at `floor`, and no read that began before it
   * is kept.
   */
  private ownWrites = 0;
  private readonly ownWriteOf = new Map<string, number>();
  private floor = 0;
  private readonly stopListening: (() => void) | undefined;

  constructor(storage: Storage, options: DatabaseMemoryOptions = {}) {
    if (!storage.isSql) throw new Error('DatabaseMemoryStore needs a SQL database');
    this.storage = storage;
    this.conn = storage.orm.em.getConnection() as unknown as AbstractSqlConnection;
    this.type = storage.type;
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), options.sweepIntervalMs ?? SWEEP_INTERVAL_MS);
    this.sweeper.unref();
    this.stopListening = storage.changeStamp?.onOwnWrite((key) => {
      this.ownWrites++;
      this.reads.delete(key);
      if (this.ownWriteOf.size >= READ_CACHE_MAX) {
        this.ownWriteOf.clear();
        this.floor = this.ownWrites;
      }
      this.ownWriteOf.set(key, this.ownWrites);
    });
  }

  private get knex(): Knex {
    return this.conn.getKnex();
  }

  private table(): Knex.QueryBuilder {
    return this.knex(MEMORY_TABLE);
  }

  private run(qb: Knex.QueryBuilder | Knex.Raw, trx?: Knex.Transaction): Promise<RunResult> {
    return this.conn.execute<RunResult>(qb, [], 'run', trx as never);
  }

  private all(qb: Knex.QueryBuilder | Knex.Raw, trx?: Knex.Transaction): Promise<Row[]> {
    return this.conn.execute<Row[]>(qb, [], 'all', trx as never);
  }

  /**
   * The statements every request runs (get, set, delete), compiled by knex once and then run as
   * fixed SQL text with bound values (kept prepared statements on SQLite, see
   * storage/sqlite-statements.ts): building and compiling a knex query per call measured as the
   * larger part of a memory-store read on the request path.
   */
  private statement(name: string, build: (p: typeof SENTINELS) => Knex.QueryBuilder): Statement {
    let st = this.statements.get(name);
    if (!st) {
      const { sql, bindings } = build(SENTINELS).toSQL();
      const params = bindings.map((b) => {
        const found = (Object.keys(SENTINELS) as ParamName[]).find((n) => SENTINELS[n] === b);
        if (!found) throw new Error(`memory store: unexpected binding in ${name}`);
        return found;
      });
      st = { sql, params };
      this.statements.set(name, st);
    }
    return st;
  }

  private async runStatement(st: Statement, method: 'run', p: Params, options?: StatementOptions): Promise<RunResult>;
  private async runStatement(st: Statement, method: 'all', p: Params): Promise<Row[]>;
  private async runStatement(st: Statement, method: 'get', p: Params): Promise<Row | undefined>;
  private async runStatement(
    st: Statement,
    method: 'all' | 'get' | 'run',
    p: Params,
    options?: StatementOptions,
  ): Promise<RunResult | Row[] | Row | undefined> {
    const values = st.params.map((n) => p[n]);
    if (method === 'all') return (await this.storage.statements.run(st.sql, values, 'all')) as unknown as Row[];
    if (method === 'get')
      return (await this.storage.statements.run(st.sql, values, 'get')) as unknown as Row | undefined;
    return this.storage.statements.run(st.sql, values, 'run', options);
  }

  /** Deletes expired rows; returns how many. */
  async sweep(): Promise<number> {
    if (this.closed) return 0;
    const r = await this.run(this.table().where('expires_at', '<=', this.now()).delete());
    return r.affectedRows;
  }

  private async liveRow(key: string): Promise<Row | undefined> {
    const st = this.statement('live-row', (p) =>
      this.table().select('key', 'value', 'expires_at').where('key', p.key).andWhere('expires_at', '>', p.now),
    );
    return this.runStatement(st, 'get', { key, now: this.now() });
  }

  /** Removes the key's row if it has expired, so an insert can start afresh. */
  private async clearExpired(key: string): Promise<void> {
    await this.run(this.table().where('key', key).andWhere('expires_at', '<=', this.now()).delete());
  }

  /** Inserts unless the key exists; true when this call inserted. */
  private async insertIfMissing(key: string, value: string, expiresAt: number): Promise<boolean> {
    const r = await this.run(this.table().insert({ key, value, expires_at: expiresAt }).onConflict('key').ignore());
    return r.affectedRows > 0;
  }

  /**
   * On a SQLite file a read is kept in process and answered again while nothing at all has been
   * committed to the database since (storage/sqlite-change-stamp.ts): every bearer request reads
   * its session here, and a cold SQLite read cost more CPU than the rest of the request. Any
   * commit, by this process or another sharing the file, makes every kept read stale, so a
   * logout or a revocation is seen by the next request as before. The stamp is taken before the
   * read; a value is filed under it, never under a later one.
   */
  async get(key: string): Promise<string | null> {
    checkKey(key);
    const writes = this.ownWrites;
    const changes = this.storage.changeStamp;
    const stamp = changes === undefined ? undefined : await changes.shared();
    if (stamp !== undefined) {
      const kept = stamp === this.readsStamp ? this.reads.get(key) : undefined;
      if (kept !== undefined && kept.expiresAt > this.now()) return kept.value;
    }
    const row = await this.liveRow(key);
    const value = row?.value ?? null;
    if (stamp !== undefined && this.unwrittenSince(key, writes))
      this.keep(key, { value, expiresAt: row ? Number(row.expires_at) : Infinity }, stamp);
    return value;
  }

  /** No own write of `key` completed after `writes` own writes (when its read began; see `ownWrites`). */
  private unwrittenSince(key: string, writes: number): boolean {
    return writes >= this.floor && (this.ownWriteOf.get(key) ?? 0) <= writes;
  }

  /**
   * Files a read made under `stamp`. Stamps only grow: one older than the reads kept is already
   * stale and is not kept; a newer one makes every read kept so far stale, and they are dropped.
   */
  private keep(key: string, read: CachedRead, stamp: number): void {
    const reads = this.reads;
    if (stamp < this.readsStamp) return;
    if (stamp > this.readsStamp) {
      reads.clear();
      this.readsStamp = stamp;
    }
    reads.delete(key);
    if (reads.size >= READ_CACHE_MAX) reads.delete(reads.keys().next().value as string);
    reads.set(key, read);
  }

  /**
   * Relaxed on a SQLite file (storage/sqlite-wal-sync.ts): a `set` grants (a new session, a
   * refresh-token record, a mark), and losing one in a power cut costs a sign-in, not a
   * revocation. Deletes, consumes and every other write are durable when they return.
   */
  async set(key: string, value: string, ttlMs: number): Promise<void> {
    checkKey(key);
    const st = this.statement('set', (p) =>
      this.table()
        .insert({ key: p.key, value: p.value, expires_at: p.expiresAt })
        .onConflict('key')
        .merge(['value', 'expires_at']),
    );
    await this.ownWrite(key, (around) =>
      this.runStatement(st, 'run', { key, value, expiresAt: this.now() + ttl(ttlMs) }, { relaxed: true, around }),
    );
  }

  /**
   * One autocommit statement writing `key` alone. When it was the only commit since the change
   * stamp was last read, only that key's kept read is dropped (storage/sqlite-change-stamp.ts,
   * "Own writes"); otherwise, or when it fails, every kept read is stale (`wrote`). The stamp is
   * read just before and just after the statement, where it runs (StatementOptions.around): read
   * around the `await`, a write of another request waiting for the connection (while an ORM
   * query held it, the FGA poll's for one) ran in between, and then neither counted as the only
   * commit. Under a login load that was 1 in 10 session writes under measurement, and each
   * made every kept read stale.
   */
  private async ownWrite(
    key: string,
    exec: (around: StatementAround | undefined) => Promise<RunResult>,
  ): Promise<RunResult> {
    return runOwnWrite(this.storage.changeStamp, key, exec);
  }

  /** A write of this store is committed: reads kept from before it are stale (see `get`). */
  private wrote(): void {
    this.storage.changeStamp?.noteWrite();
  }

  /** One UPDATE of the live row: a row deleted (or expired) meanwhile is not written again. */
  async replace(key: string, value: string, ttlMs: number): Promise<boolean> {
    checkKey(key);
    const now = this.now();
    const st = this.statement('replace', (p) =>
      this.table()
        .where('key', p.key)
        .andWhere('expires_at', '>', p.now)
        .update({ value: p.value, expires_at: p.expiresAt }),
    );
    const r = await this.ownWrite(key, (around) =>
      this.runStatement(st, 'run', { key, now, value, expiresAt: now + ttl(ttlMs) }, { around }),
    );
    return r.affectedRows > 0;
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    checkKey(key);
    const expiresAt = this.now() + ttl(ttlMs);
    await this.clearExpired(key);
    const inserted = await this.insertIfMissing(key, value, expiresAt);
    this.wrote();
    return inserted;
  }

  async consume(key: string): Promise<string | null> {
    checkKey(key);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const row = await this.liveRow(key);
      if (!row) return null;
      const r = await this.run(
        this.table()
          .where({ key, value: row.value, expires_at: Number(row.expires_at) })
          .delete(),
      );
      if (r.affectedRows > 0) {
        this.wrote();
        return row.value;
      }
      // Someone consumed it first (the next read finds nothing) or replaced it (take the new one).
    }
    return null;
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    await this.ownWrite(key, (around) =>
      this.runStatement(
        this.statement('delete', (p) => this.table().where('key', p.key).delete()),
        'run',
        { key },
        { around },
      ),
    );
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    checkKey(key);
    const window = ttl(ttlMs);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const bumped = await this.bumpLive(key);
      if (bumped !== null) {
        this.wrote();
        return bumped;
      }
      await this.clearExpired(key);
      if (await this.insertIfMissing(key, '1', this.now() + window)) {
        this.wrote();
        return 1;
      }
      // Another caller started the window between our statements: bump theirs.
    }
    throw new Error(`memory store: increment of "${key}" did not settle after ${MAX_ATTEMPTS} attempts`);
  }

  /** Adds one to a live counter; null when there is no live row. */
  private async bumpLive(key: string): Promise<number | null> {
    const update = () =>
      this.table()
        .where('key', key)
        .andWhere('expires_at', '>', this.now())
        .update({ value: this.knex.raw(incrementExpression(this.type), ['value']) });
    if (this.type === 'mysql' || this.type === 'mariadb') {
      // No UPDATE ... RETURNING: the UPDATE's row lock lasts until commit, so the SELECT in the
      // same transaction reads exactly the value this call wrote.
      return this.conn.transactional(async (trx) => {
        const r = await this.run(update(), trx as Knex.Transaction);
        if (r.affectedRows === 0) return null;
        const rows = await this.all(this.table().select('value').where('key', key), trx as Knex.Transaction);
        return rows[0] ? Number.parseInt(rows[0].value, 10) : null;
      });
    }
    const rows = await this.all(update().returning('value'));
    return rows[0] ? Number.parseInt(rows[0].value, 10) : null;
  }

  async deletePrefix(prefix: string): Promise<number> {
    await this.run(this.withPrefix(this.table(), prefix).andWhere('expires_at', '<=', this.now()).delete());
    const r = await this.run(this.withPrefix(this.table(), prefix).delete());
    this.wrote();
    return r.affectedRows;
  }

  async keys(prefix: string): Promise<string[]> {
    const rows = await this.all(
      this.withPrefix(this.table().select('key'), prefix).andWhere('expires_at', '>', this.now()).orderBy('key'),
    );
    return rows.map((r) => r.key);
  }

  /**
   * Keys starting with the prefix: LIKE (with its wildcards escaped) lets an index help, and
   * the substring comparison makes it exact where LIKE ignores case (SQLite).
   */
  private withPrefix(qb: Knex.QueryBuilder, prefix: string): Knex.QueryBuilder {
    if (prefix === '') return qb.where(this.knex.raw('1 = 1'));
    const pattern = `${prefix.replace(/[!%_]/g, (c) => `!${c}`)}%`;
    const length = [...prefix].length;
    return qb
      .where(this.knex.raw(`?? like ? escape '!'`, ['key', pattern]))
      .andWhere(this.knex.raw('substr(??, 1, ?) = ?', ['key', length, prefix]));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.stopListening?.();
  }
}

/** `value + 1` for a counter kept as text, in each database's cast syntax. */
function incrementExpression(type: DatabaseType): string {
  switch (type) {
    case 'postgres':
      return 'cast(cast(?? as bigint) + 1 as text)';
    case 'mysql':
    case 'mariadb':
      return 'cast(cast(?? as signed) + 1 as char)';
    default:
      return 'cast(cast(?? as integer) + 1 as text)';
  }
}

function checkKey(key: string): void {
  // Characters are code points (the column's length); a key no longer in UTF-16 units than the
  // limit is within it, so only longer ones are spread into code points (an array per call).
  if (key.length === 0 || (key.length > MEMORY_KEY_MAX && [...key].length > MEMORY_KEY_MAX)) {
    throw new RangeError(`memory store keys must be 1 to ${MEMORY_KEY_MAX} characters`);
  }
}
