/**
 * The SQL store through MikroORM (SQLite, PostgreSQL, MySQL, MariaDB). Every mutation runs in
 * one transaction that first locks the counter row, takes the next sequence numbers, applies
 * the tuples and appends the same changes to the log: all or nothing, in sequence order.
 */
import { createHash } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { ServiceError } from '../../../core/errors.js';
import type { Logger } from '../../../core/logger.js';
import type { Storage } from '../../../core/storage.js';
import { openUnitOfWork, type UnitOfWork } from '../../../core/unit-of-work.js';
import { newId } from '../../../storage/index.js';
import { tupleKey } from '../engine/tuple-format.js';
import type { Tuple } from '../engine/types.js';
import { fgaChangeEntity, fgaCounterEntity, fgaModelEntity, fgaTupleEntity } from './sql-entities.js';
import { checkModelInForce, checkWriteBatch, matchesFilter, stillHasTuples } from './store-rules.js';
import type { Change, FgaStore, ReadFilter, Snapshot, StoredModel, TuplePage } from './types.js';

const COUNTER_ID = 1;
/** Runs of a write transaction that met SQLITE_BUSY before it gives up (see `sequenced`). */
const BUSY_ATTEMPTS = 50;
const isBusy = (err: unknown): boolean =>
  /SQLITE_BUSY|database is locked/i.test(`${(err as { code?: string }).code ?? ''} ${(err as Error).message ?? ''}`);
/** Rows per INSERT / IN (...) list: well under every driver's parameter limit. */
const CHUNK = 2000;
/** Rows per multi-row INSERT of a bulk import (6 parameters each: 6000, under SQLite's 32766 and PostgreSQL's 65535). */
const IMPORT_CHUNK = 1000;
const LOAD_PAGE = 50_000;

interface TupleRow {
  id: string;
  objectType: string;
  object: string;
  relation: string;
  user: string;
  seq: number;
}

interface ChangeRow {
  seq: number;
  op: string;
  object: string | null;
  relation: string | null;
  user: string | null;
  modelId: string | null;
  at: number;
}

export const tupleId = (t: Tuple): string => createHash('sha256').update(tupleKey(t)).digest('hex');

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Rows fetched per query by a tuple read (see readTuples). */
const READ_BATCH_MAX = 2_000;
const READ_BATCH_MIN = 100;
/** Rows a tuple read looks at before it answers a short page with a token (see readTuples). */
export const READ_SCAN = 10_000;

export class SqlFgaStore implements FgaStore {
  readonly kind = 'sql' as const;

  private constructor(
    private readonly storage: Storage,
    /** Closed with the store only when the store opened it (a separate `--fga-store`). */
    private readonly owned: boolean,
    /** Model ids (time-ordered from this node's clock; tests stand in a node whose clock is behind). */
    private readonly modelId: () => string,
    /** Where a failed after-commit step of a reset's unit of work is reported. */
    private readonly logger: Logger | undefined,
  ) {}

  static async open(
    storage: Storage,
    owned: boolean,
    options: { modelId?: () => string; logger?: Logger } = {},
  ): Promise<SqlFgaStore> {
    const store = new SqlFgaStore(storage, owned, options.modelId ?? newId, options.logger);
    await store.ensureCounter();
    return store;
  }

  private em(): SqlEntityManager {
    return this.storage.em() as SqlEntityManager;
  }

  private async ensureCounter(): Promise<void> {
    const em = this.em();
    if (await em.count(fgaCounterEntity, { id: COUNTER_ID })) return;
    try {
      await em.insert(fgaCounterEntity, { id: COUNTER_ID, seq: 0 });
    } catch (err) {
      // Another node created it first.
      if (!(await this.em().count(fgaCounterEntity, { id: COUNTER_ID }))) throw err;
    }
  }

  /**
   * Runs `fn` holding the counter lock; `fn` gets the first free sequence number. With `within`
   * the transaction is a unit of work's commit (core/unit-of-work.ts): `within` adds its rows to
   * the unit first, and the one commit stores them with the change.
   */
  private async sequenced<T>(
    count: number,
    fn: (em: SqlEntityManager, firstSeq: number) => Promise<T>,
    within?: (unit: UnitOfWork) => Promise<void>,
  ): Promise<T> {
    // SQLite: a transaction starts deferred (reading the counter takes a shared lock), so of two
    // connections on one file (two nodes) the second to write cannot take the write lock and
    // fails at once with SQLITE_BUSY, whatever the busy timeout (that would deadlock). Nothing
    // was written then: the whole transaction runs again after a short pause.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.sequencedOnce(count, fn, within);
      } catch (err) {
        if (attempt >= BUSY_ATTEMPTS || !isBusy(err)) throw err;
        await new Promise((r) => setTimeout(r, 2 + Math.random() * 8 * attempt));
      }
    }
  }

  private async sequencedOnce<T>(
    count: number,
    fn: (em: SqlEntityManager, firstSeq: number) => Promise<T>,
    within: ((unit: UnitOfWork) => Promise<void>) | undefined,
  ): Promise<T> {
    const locked = async (em: EntityManager): Promise<T> => {
      const sqlEm = em as SqlEntityManager;
      const sqlite = this.storage.type === 'sqlite' || this.storage.type === 'libsql';
      // SQLite has no row locks: a write as the transaction's first statement takes the file's
      // write lock before anything is read (waiting for another connection's writer as the busy
      // timeout allows), so the counter read next is current. Reading first would start a
      // snapshot that a commit on another connection makes stale, and the write after it would
      // fail with SQLITE_BUSY however long it waited.
      if (sqlite) await sqlEm.execute('update latchkey_fga_counter set seq = seq where _id = ?', [COUNTER_ID], 'run');
      const lockMode = sqlite ? undefined : LockMode.PESSIMISTIC_WRITE;
      const counter = await sqlEm.findOneOrFail(fgaCounterEntity, { id: COUNTER_ID }, { lockMode, refresh: true });
      const first = Number(counter.seq) + 1;
      const result = await fn(sqlEm, first);
      if (count > 0) await sqlEm.nativeUpdate(fgaCounterEntity, { id: COUNTER_ID }, { seq: first + count - 1 });
      return result;
    };
    if (!within) return this.em().transactional(locked);
    // A unit of its own for each run: a rolled-back transaction drops the rows its unit held, so
    // a run again after SQLITE_BUSY has `within` add them again. `within` does its reads before
    // the transaction begins (on SQLite the transaction holds the one connection).
    const unit = openUnitOfWork(this.em(), (err) => this.logger?.error({ err }, 'after-commit step failed'));
    await within(unit);
    let result: T | undefined;
    await unit.commit(async (em) => {
      result = await locked(em);
    });
    return result as T;
  }

  /**
   * The model in force: the last installed in the change log's order (`seq`), which is the order
   * every node applies installs in. Ids are time-ordered only by the installing node's clock, so
   * two nodes with skewed clocks could order them the other way. Rows from before `seq` was kept
   * (null) are older than any with one; among themselves their ids decide.
   */
  async latestModel(em: EntityManager = this.em()): Promise<StoredModel | null> {
    const [row] = await em.find(fgaModelEntity, { seq: { $ne: null } }, { orderBy: { seq: 'desc' }, limit: 1 });
    const found = row ?? (await em.find(fgaModelEntity, {}, { orderBy: { id: 'desc' }, limit: 1 }))[0];
    return found ? { id: found.id, dsl: found.dsl } : null;
  }

  async installModel(dsl: string): Promise<StoredModel> {
    const model = { id: this.modelId(), dsl };
    await this.sequenced(1, async (em, seq) => {
      const now = Date.now();
      await em.insert(fgaModelEntity, { id: model.id, dsl, createdAt: now, seq });
      await em.insert(fgaChangeEntity, {
        seq,
        op: 'model',
        modelId: model.id,
        object: null,
        relation: null,
        user: null,
        at: now,
      });
    });
    return model;
  }

  async writeTuples(writes: readonly Tuple[], deletes: readonly Tuple[], modelId?: string): Promise<void> {
    const n = writes.length + deletes.length;
    if (n === 0) return;
    await this.sequenced(n, async (em, first) => {
      if (modelId !== undefined) checkModelInForce(modelId, await this.latestModel(em));
      const ids = [...writes, ...deletes].map(tupleId);
      const existing = new Set<string>();
      for (const part of chunks(ids)) {
        const rows = await em
          .createQueryBuilder(fgaTupleEntity)
          .select(['id'])
          .where({ id: { $in: part } })
          .execute('all', false);
        for (const r of rows as { _id?: string; id?: string }[]) existing.add((r.id ?? r._id)!);
      }
      checkWriteBatch(writes, deletes, (t) => existing.has(tupleId(t)));
      const now = Date.now();
      let seq = first;
      const changes: ChangeRow[] = [];
      for (const t of deletes)
        changes.push({
          seq: seq++,
          op: 'delete',
          object: t.object,
          relation: t.relation,
          user: t.user,
          modelId: null,
          at: now,
        });
      const rows: TupleRow[] = writes.map((t) => {
        changes.push({
          seq,
          op: 'write',
          object: t.object,
          relation: t.relation,
          user: t.user,
          modelId: null,
          at: now,
        });
        return {
          id: tupleId(t),
          objectType: t.object.slice(0, t.object.indexOf(':')),
          object: t.object,
          relation: t.relation,
          user: t.user,
          seq: seq++,
        };
      });
      for (const part of chunks(deletes.map(tupleId))) await em.nativeDelete(fgaTupleEntity, { id: { $in: part } });
      for (const part of chunks(rows)) await em.insertMany(fgaTupleEntity, part);
      for (const part of chunks(changes)) await em.insertMany(fgaChangeEntity, part);
    });
  }

  async importTuples(tuples: readonly Tuple[], modelId?: string): Promise<void> {
    if (tuples.length === 0) return;
    await this.sequenced(1, async (em, seq) => {
      if (modelId !== undefined) checkModelInForce(modelId, await this.latestModel(em));
      const mysql = this.storage.type === 'mysql' || this.storage.type === 'mariadb';
      // Plain multi-row VALUES (knex writes SQLite inserts as UNION ALL, capped at 500 rows).
      const head = mysql
        ? 'insert ignore into latchkey_fga_tuples (_id, object_type, object, relation, user_ref, seq) values '
        : 'insert into latchkey_fga_tuples (_id, object_type, object, relation, user_ref, seq) values ';
      const tail = mysql ? '' : ' on conflict (_id) do nothing';
      // One sequence number for the whole import: the log has a single entry for it.
      for (let i = 0; i < tuples.length; i += IMPORT_CHUNK) {
        const part = tuples.slice(i, i + IMPORT_CHUNK);
        const params: (string | number)[] = [];
        for (const t of part)
          params.push(tupleId(t), t.object.slice(0, t.object.indexOf(':')), t.object, t.relation, t.user, seq);
        await em.execute(head + part.map(() => '(?, ?, ?, ?, ?, ?)').join(', ') + tail, params, 'run');
      }
      await em.insert(fgaChangeEntity, {
        seq,
        op: 'reload',
        object: null,
        relation: null,
        user: null,
        modelId: null,
        at: Date.now(),
      });
    });
  }

  async readTuples(filter: ReadFilter, pageSize: number, token?: string): Promise<TuplePage> {
    const where: Record<string, unknown> = {};
    if (filter.user) where.user = filter.user;
    if (filter.relation) where.relation = filter.relation;
    if (filter.object?.endsWith(':')) where.objectType = filter.object.slice(0, -1);
    else if (filter.object) where.object = filter.object;
    let cursor: string | undefined;
    if (token) {
      cursor = Buffer.from(token, 'base64url').toString();
      if (!/^[0-9a-f]{64}$/.test(cursor)) throw new ServiceError('invalid_argument', 'invalid continuation_token');
    }
    // Case-insensitive collations (MySQL, MariaDB) may match more than asked: only exact matches
    // count, and rows are read on until the page is full or none are left (otherwise the near
    // misses take the page's places, and pages come back short or empty with a token).
    const tuples: Tuple[] = [];
    const em = this.em();
    const next = () => Buffer.from(cursor!).toString('base64url');
    // Batches of at least twice the page and 100 rows (near misses come in runs), and at most READ_SCAN rows
    // looked at per call: past it, a short page and a token (with the batch shrinking to the
    // places left, a page among thousands of near misses would cost a query per row).
    const batch = Math.min(READ_BATCH_MAX, Math.max(READ_BATCH_MIN, 2 * pageSize));
    let scanned = 0;
    for (;;) {
      const rows = (await em.find(fgaTupleEntity, cursor === undefined ? where : { ...where, id: { $gt: cursor } }, {
        orderBy: { id: 'asc' },
        limit: batch,
      })) as TupleRow[];
      let used = 0;
      while (used < rows.length && tuples.length < pageSize) {
        const r = rows[used++];
        cursor = r.id;
        const t = { user: r.user, relation: r.relation, object: r.object };
        if (matchesFilter(t, filter)) tuples.push(t);
      }
      scanned += used;
      // Full: more may follow when rows are left in this batch, or when the batch was full.
      if (tuples.length === pageSize)
        return { tuples, continuationToken: used < rows.length || rows.length === batch ? next() : '' };
      if (rows.length < batch) return { tuples, continuationToken: '' };
      if (scanned >= READ_SCAN) return { tuples, continuationToken: next() };
    }
  }

  async countTuples(): Promise<number> {
    return this.em().count(fgaTupleEntity, {});
  }

  /**
   * Stores the reset and `within`'s rows in one transaction when this store is kept in the main
   * database (true). A store with a database of its own (`--fga-store`) cannot: its transaction
   * and the main database's are two commits on two servers, and no order of the two leaves no gap
   * (the event first could report a reset that then fails, the reset first can lose the event to
   * a crash in between), so `within` is not called and the caller emits after the reset (false).
   */
  async reset(within?: (unit: UnitOfWork) => Promise<void>): Promise<boolean> {
    const shared = within !== undefined && !this.owned;
    await this.sequenced(
      1,
      async (em, seq) => {
        if ((await em.count(fgaTupleEntity, {})) > 0) {
          throw stillHasTuples();
        }
        await em.nativeDelete(fgaModelEntity, {});
        await em.insert(fgaChangeEntity, {
          seq,
          op: 'reset',
          object: null,
          relation: null,
          user: null,
          modelId: null,
          at: Date.now(),
        });
      },
      shared ? within : undefined,
    );
    return shared;
  }

  async snapshot(): Promise<Snapshot> {
    // The sequence is read first: the tuples read afterwards are at least that new, and
    // replaying the log from here converges (each change sets one tuple's final state).
    const counter = await this.em().findOne(fgaCounterEntity, { id: COUNTER_ID });
    const seq = Number(counter?.seq ?? 0);
    const model = await this.latestModel();
    const tuples: Tuple[] = [];
    let after = '';
    for (;;) {
      const qb = this.em()
        .createQueryBuilder(fgaTupleEntity)
        .select(['id', 'object', 'relation', 'user'])
        .orderBy({ id: 'asc' })
        .limit(LOAD_PAGE);
      if (after) qb.where({ id: { $gt: after } });
      const rows = (await qb.execute('all', true)) as { id: string; object: string; relation: string; user: string }[];
      for (const r of rows) tuples.push({ user: r.user, relation: r.relation, object: r.object });
      if (rows.length < LOAD_PAGE) break;
      after = rows[rows.length - 1].id;
    }
    return { model, tuples, seq };
  }

  /**
   * On a SQLite file, where the log was last read to its end: the sequence number reached and
   * the change stamp taken before that read (storage/sqlite-change-stamp.ts).
   */
  private readToEnd: { seq: number; stamp: number } | undefined;

  /**
   * The changes after `seq`. On a SQLite file a poll that finds the stamp as it was before the
   * last read that reached the log's end, from the same place, answers "nothing new" without a
   * query: no commit at all, by any process, has happened since that read began, so the log
   * cannot have grown. Every node polls four times a second, busy or idle; under a login load
   * the query was ~1.5% of the main thread's time (CPU profile, 2026-11-29), and an idle server
   * queried its database for nothing. The stamp's own-write rule (a session stored by this
   * process that was the only commit leaves the stamp as it was) cannot hide a change-log row:
   * that rule holds only when no other commit came between.
   */
  async changesSince(seq: number, limit: number): Promise<Change[] | null> {
    const stamp = this.storage.changeStamp?.current();
    const known = this.readToEnd;
    if (stamp !== undefined && known !== undefined && known.stamp === stamp && known.seq === seq) return [];
    this.readToEnd = undefined;
    const out = await this.readChanges(seq, limit);
    if (stamp !== undefined && out !== null && out.length < limit)
      this.readToEnd = { seq: out.length > 0 ? out[out.length - 1].seq : seq, stamp };
    return out;
  }

  private async readChanges(seq: number, limit: number): Promise<Change[] | null> {
    const rows = (await this.em()
      .createQueryBuilder(fgaChangeEntity)
      .select('*')
      .where({ seq: { $gt: seq } })
      .orderBy({ seq: 'asc' })
      .limit(limit)
      .execute('all', true)) as ChangeRow[];
    // Every number in turn, or a snapshot: a hole in the middle (entries pruned by the time a
    // node whose clock ran behind wrote them, while later numbers stayed) must not be stepped over.
    for (let i = 0; i < rows.length; i++) if (Number(rows[i].seq) !== seq + 1 + i) return null;
    const out: Change[] = [];
    for (const r of rows) {
      const s = Number(r.seq);
      if (r.op === 'write' || r.op === 'delete')
        out.push({ seq: s, op: r.op, tuple: { object: r.object!, relation: r.relation!, user: r.user! } });
      else if (r.op === 'model') {
        const m = await this.em().findOne(fgaModelEntity, { id: r.modelId! });
        // A model deleted by a later reset: the reset change that follows clears it anyway.
        out.push({ seq: s, op: 'model', model: m ? { id: m.id, dsl: m.dsl } : { id: r.modelId!, dsl: '' } });
      } else if (r.op === 'reload') out.push({ seq: s, op: 'reload' });
      else out.push({ seq: s, op: 'reset' });
    }
    return out;
  }

  async pruneChanges(before: number): Promise<number> {
    const [newest] = (await this.em()
      .createQueryBuilder(fgaChangeEntity)
      .select(['seq'])
      .orderBy({ seq: 'desc' })
      .limit(1)
      .execute('all', true)) as { seq: number }[];
    if (!newest) return 0;
    return this.em().nativeDelete(fgaChangeEntity, { at: { $lt: before }, seq: { $lt: Number(newest.seq) } });
  }

  async close(): Promise<void> {
    if (this.owned) await this.storage.close();
  }
}
