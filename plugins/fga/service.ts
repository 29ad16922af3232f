/**
 * The FGA service: the model in force and the tuple index of this node, kept in step with the
 * store, and the questions the operations and other plugins ask.
 *
 * What is cached, and how a write on one node reaches another (README.md has the numbers):
 * - each node holds the latest model (compiled) and every tuple in an in-memory index; checks,
 *   list objects and list users read only that index, never the database;
 * - a write goes to the store in one transaction that also appends to the change log, then the
 *   writing node pulls the log at once, so its own next read sees the write;
 * - every other node pulls the log every `syncIntervalMs` (default 250 ms) and applies the
 *   changes in sequence order; a node that fell behind the log's retention reloads a snapshot.
 *   A write is therefore visible everywhere within one interval plus one small query.
 */
import { ServiceError } from '../../core/errors.js';
import { CheckCache } from './engine/check-cache.js';
import { CompiledModel } from './engine/compiled-model.js';
import { ModelError } from './engine/dsl-error.js';
import { MAX_TEXT_BYTES } from '../../core/storage.js';
import {
  checkMany,
  expandOf,
  listObjectsOf,
  listUsersOf,
  requireObjectRelation,
  type CheckQuery,
} from './engine/queries.js';
import { Resolver } from './engine/resolver.js';
import { isRelationName, parseObject } from './engine/tuple-format.js';
import { TupleIndex } from './engine/tuple-index.js';
import type { ListResult } from './engine/list-objects.js';
import type { Tuple } from './engine/types.js';
import type { Change, FgaStore, ReadFilter, StoredModel, TuplePage } from './store/types.js';
import { ModelChangedError, stillHasTuples } from './store/store-rules.js';
import type { ResetOptions } from './api.js';

export const LIST_CAP = 1000;
const CHANGE_BATCH = 10_000;
/** Times a write is validated again because the model in force changed under it (validatedWrite). */
const MODEL_RACE_ATTEMPTS = 5;
/** Default pull interval of the change log (see the header). */
export const SYNC_INTERVAL_MS = 250;
/**
 * Change-log retention. A live node is at most one poll interval (250 ms) behind the log; the
 * log only has to outlast the longest stall we expect of a live node (GC pause, database
 * failover, a laptop asleep) so that it catches up by replaying changes instead of reloading
 * everything. One hour is far beyond that and small on disk (one row per tuple change); a node
 * stalled longer still converges: it finds the gap and reloads a snapshot.
 */
export const CHANGE_RETENTION_MS = 60 * 60 * 1000;
/** How often a node prunes the log (also once at start). Every node may do it: it is idempotent. */
export const PRUNE_INTERVAL_MS = 5 * 60 * 1000;
/** Default bound of the check-answer cache (engine/check-cache.ts); about 10 MB when full. */
export const CHECK_CACHE_SIZE = 100_000;

export interface FgaServiceOptions {
  /** How often to pull the change log written by other nodes; 0 turns polling off. */
  syncIntervalMs?: number;
  /** Change-log entries older than this are deleted (the newest entry is always kept). */
  changeRetentionMs?: number;
  /** How often to prune; 0 turns the timer off (pruning at start still happens). */
  pruneIntervalMs?: number;
  /** How many check answers to remember (engine/check-cache.ts); 0 turns the cache off. */
  checkCacheSize?: number;
}

export interface Permission {
  object: string;
  relation: string;
}

export interface ListPermissionsResult {
  objects: string[];
  permissions: Permission[];
  truncated: boolean;
}

export class FgaService {
  readonly enabled = true;
  private model = CompiledModel.empty();
  private readonly index = new TupleIndex();
  private seq = 0;
  private syncing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private pruning: Promise<number> | null = null;
  private retentionMs = CHANGE_RETENTION_MS;
  /** Counts every change applied to the index or the model; cached answers name theirs. */
  private generation = 0;
  private checkCache: CheckCache | null = null;
  /** When the last successful pull finished (ms since epoch). */
  lastSyncAt = 0;

  private constructor(readonly store: FgaStore) {}

  static async open(store: FgaStore, options: FgaServiceOptions = {}): Promise<FgaService> {
    const service = new FgaService(store);
    service.retentionMs = options.changeRetentionMs ?? CHANGE_RETENTION_MS;
    const cacheSize = options.checkCacheSize ?? CHECK_CACHE_SIZE;
    if (cacheSize > 0) service.checkCache = new CheckCache(cacheSize);
    await service.prune();
    await service.reload();
    const interval = options.syncIntervalMs ?? (store.kind === 'memory' ? 0 : SYNC_INTERVAL_MS);
    if (interval > 0) {
      service.timer = setInterval(() => void service.sync().catch(() => {}), interval);
      service.timer.unref();
    }
    const pruneEvery = options.pruneIntervalMs ?? PRUNE_INTERVAL_MS;
    if (pruneEvery > 0) {
      service.pruneTimer = setInterval(() => void service.prune().catch(() => 0), pruneEvery);
      service.pruneTimer.unref();
    }
    return service;
  }

  /** Deletes change-log entries older than the retention; returns how many went. */
  prune(): Promise<number> {
    this.pruning ??= this.store.pruneChanges(Date.now() - this.retentionMs).finally(() => {
      this.pruning = null;
    });
    return this.pruning;
  }

  get currentModel(): CompiledModel {
    return this.model;
  }

  get tupleCount(): number {
    return this.index.size;
  }

  get sequence(): number {
    return this.seq;
  }

  private setModel(m: StoredModel | null): void {
    this.generation++;
    // A stored model always compiled when installed; an empty DSL is what a reset leaves.
    this.model = m && m.dsl ? CompiledModel.fromDsl(m.id, m.dsl) : CompiledModel.empty();
  }

  /** Loads everything afresh (start, or after falling behind the log). */
  async reload(): Promise<void> {
    const snap = await this.store.snapshot();
    this.index.clear(); // setModel below starts a new generation
    for (const t of snap.tuples) this.index.add(t);
    this.setModel(snap.model);
    this.seq = snap.seq;
    await this.pull();
  }

  /**
   * A pull that starts after this call: what a writer needs once its transaction committed.
   * Joining a pull already in flight is not enough, as it may have read the log before the
   * commit (a node would miss its own write until the next tick).
   */
  private async syncAfterWrite(): Promise<void> {
    if (this.syncing) await this.syncing.catch(() => undefined);
    await this.sync();
  }

  /**
   * Validates `tuples` against the model in force and runs `write` with that model's id, which
   * the store checks under the log's lock: when another node installed a model (or reset) in
   * between, this node catches up and validates again.
   */
  private async validatedWrite(tuples: readonly Tuple[], write: (modelId: string) => Promise<void>): Promise<void> {
    await this.sync();
    for (let attempt = 1; ; attempt++) {
      this.requireModel();
      for (const t of tuples) this.model.validateStoredTuple(t);
      try {
        await write(this.model.id);
        break;
      } catch (err) {
        if (!(err instanceof ModelChangedError)) throw err;
        if (attempt >= MODEL_RACE_ATTEMPTS)
          throw new ServiceError('unavailable', 'the authorization model kept changing during the write; try again');
        await this.syncAfterWrite();
      }
    }
    await this.syncAfterWrite();
  }

  /** Pulls and applies the change log; concurrent callers share one pull. */
  sync(): Promise<void> {
    this.syncing ??= this.pull().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async pull(): Promise<void> {
    for (;;) {
      const changes = await this.store.changesSince(this.seq, CHANGE_BATCH);
      if (changes === null) return this.reload();
      for (const c of changes) {
        // A bulk import is not replayed tuple by tuple: a snapshot has it (and what followed).
        if (c.op === 'reload') return this.reload();
        this.apply(c);
      }
      this.lastSyncAt = Date.now();
      if (changes.length < CHANGE_BATCH) return;
    }
  }

  private apply(c: Exclude<Change, { op: 'reload' }>): void {
    this.generation++;
    if (c.op === 'write') this.index.add(c.tuple);
    else if (c.op === 'delete') this.index.remove(c.tuple);
    else if (c.op === 'model') this.setModel(c.model);
    else this.setModel(null);
    this.seq = c.seq;
  }

  // --- model -------------------------------------------------------------------------------

  async getModel(): Promise<StoredModel> {
    await this.sync();
    return { id: this.model.id, dsl: this.model.dsl };
  }

  async installModel(dsl: string): Promise<StoredModel> {
    // Its DSL is kept in a TEXT column (a larger model is a 500 on MariaDB).
    if (Buffer.byteLength(dsl) > MAX_TEXT_BYTES)
      throw new ServiceError('invalid_argument', `invalid model: at most ${MAX_TEXT_BYTES} bytes of UTF-8`);
    try {
      const compiled = CompiledModel.fromDsl('', dsl);
      // The language accepts a model without types (OpenFGA's syntax cases do), but OpenFGA's
      // API refuses to write one: every check after it would fail on an undefined type.
      if (compiled.model.types.size === 0)
        throw new ModelError('the model defines no type: at least one is needed.', 0, 'no-types');
    } catch (err) {
      if (err instanceof ModelError) throw new ServiceError('invalid_argument', err.message);
      throw err;
    }
    const stored = await this.store.installModel(dsl);
    await this.syncAfterWrite();
    return stored;
  }

  // --- tuples ------------------------------------------------------------------------------

  async writeTuples(tuples: readonly Tuple[]): Promise<void> {
    await this.validatedWrite(tuples, (modelId) => this.store.writeTuples(tuples, [], modelId));
  }

  /** Bulk import (validated like writes; existing tuples are kept): see FgaStore.importTuples. */
  async importTuples(tuples: readonly Tuple[]): Promise<void> {
    await this.validatedWrite(tuples, (modelId) => this.store.importTuples(tuples, modelId));
  }

  async deleteTuples(tuples: readonly Tuple[]): Promise<void> {
    await this.store.writeTuples([], tuples);
    await this.syncAfterWrite();
  }

  readTuples(filter: ReadFilter, pageSize: number, continuationToken?: string): Promise<TuplePage> {
    return this.store.readTuples(filter, pageSize, continuationToken);
  }

  /**
   * Deletes the store. `beforeReset` (the audit record) runs once the reset is known to be
   * allowed and before anything is deleted: a reset never happens unrecorded, and a refused one
   * leaves no record. The store checks for tuples again under its lock, for a write in between.
   * `within` (the reset's event) joins the reset's own commit where the store allows it: see
   * FgaStore.reset for when it does (true) and why a store of its own cannot (false).
   */
  async reset(options: ResetOptions = {}): Promise<boolean> {
    if ((await this.store.countTuples()) > 0) throw stillHasTuples();
    await options.beforeReset?.();
    const within = await this.store.reset(options.within);
    await this.syncAfterWrite();
    return within;
  }

  private requireModel(): void {
    if (this.model.isEmpty) throw new ServiceError('failed_precondition', 'no authorization model is installed');
  }

  // --- questions ---------------------------------------------------------------------------

  /** Answers checks in order (reads this node's index; see the header on freshness). */
  check(queries: readonly CheckQuery[]): boolean[] {
    this.requireModel();
    const cache = this.checkCache;
    if (!cache) return checkMany(this.model, this.index, queries);
    // Synchronous from here on: the index cannot change between the lookups and the stores.
    const generation = this.generation;
    const out: boolean[] = new Array<boolean>(queries.length);
    let missed: number[] | undefined;
    // Per question: its cache hash, or -1 when it has contextual tuples (never cached).
    const hashes: number[] = new Array<number>(queries.length);
    for (let i = 0; i < queries.length; i++) {
      const q = queries[i];
      const hash = q.contextualTuples && q.contextualTuples.length > 0 ? -1 : cache.hash(q);
      hashes[i] = hash;
      const hit = hash < 0 ? undefined : cache.get(generation, q, hash);
      if (hit === undefined) (missed ??= []).push(i);
      else out[i] = hit;
    }
    if (missed) {
      const answers = checkMany(
        this.model,
        this.index,
        missed.length === queries.length ? queries : missed.map((i) => queries[i]),
      );
      for (let j = 0; j < missed.length; j++) {
        const i = missed[j];
        out[i] = answers[j];
        if (hashes[i] >= 0) cache.set(generation, queries[i], answers[j], hashes[i]);
      }
    }
    return out;
  }

  /** How many check answers are remembered now (0 when the cache is off). */
  get cachedAnswers(): number {
    return this.checkCache?.size ?? 0;
  }

  /** True when `subject` holds every relation (the `required_relations` rule); false when FGA lacks the model. */
  async checkRelations(subject: string, relations: readonly Permission[]): Promise<boolean> {
    if (relations.length === 0) return true;
    // A malformed question is the caller's mistake whether or not a model is written yet: with
    // none, `doc1` gets the same 400 as once one is.
    for (const r of relations) {
      if (!parseObject(r.object))
        throw new ServiceError('invalid_argument', `invalid object '${r.object}': expected type:id`);
      if (!isRelationName(r.relation)) throw new ServiceError('invalid_argument', `invalid relation '${r.relation}'`);
    }
    if (this.model.isEmpty) return false;
    return this.check(relations.map((r) => ({ user: subject, relation: r.relation, object: r.object }))).every(Boolean);
  }

  listObjects(type: string, relation: string, user: string, limit = LIST_CAP): ListResult {
    this.requireModel();
    return listObjectsOf(this.model, this.index, type, relation, user, limit);
  }

  /**
   * list_permissions: with filters, the objects of a type (or every type) on which the
   * subject has the relation (or any relation); an empty filter lists every permission.
   */
  listPermissions(
    user: string,
    filter: { relation?: string; objectType?: string },
    cap = LIST_CAP,
  ): ListPermissionsResult {
    this.requireModel();
    const model = this.model.model;
    if (filter.objectType && !model.types.has(filter.objectType)) {
      throw new ServiceError(
        'invalid_argument',
        `type '${filter.objectType}' is not defined in the authorization model`,
      );
    }
    const types = filter.objectType ? [filter.objectType] : [...model.types.keys()];
    // A relation no type defines is a mistake in the request, not an empty answer.
    const named = filter.relation;
    if (named && !filter.objectType && !types.some((type) => this.model.relation(type, named))) {
      throw new ServiceError(
        'invalid_argument',
        `relation '${named}' is not defined on any type of the authorization model`,
      );
    }
    const resolver = new Resolver(this.model, this.index);
    const permissions: Permission[] = [];
    const objects = new Set<string>();
    let truncated = false;
    outer: for (const type of types) {
      const relations = filter.relation ? [filter.relation] : [...model.types.get(type)!.relations.keys()];
      for (const relation of relations) {
        if (!this.model.relation(type, relation)) {
          if (filter.objectType)
            throw new ServiceError('invalid_argument', `relation '${relation}' is not defined on type '${type}'`);
          continue;
        }
        const left = cap - permissions.length;
        const found = listObjectsOf(this.model, this.index, type, relation, user, left, resolver);
        for (const id of found.ids) {
          permissions.push({ object: `${type}:${id}`, relation });
          objects.add(`${type}:${id}`);
        }
        if (found.truncated) {
          truncated = true;
          break outer;
        }
      }
    }
    return { objects: [...objects], permissions, truncated };
  }

  listUsers(object: string, relation: string, userType: string): string[] {
    this.requireModel();
    return listUsersOf(this.model, this.index, object, relation, userType);
  }

  expand(object: string, relation: string): string {
    this.requireModel();
    requireObjectRelation(this.model, object, relation);
    return JSON.stringify(expandOf(this.model, this.index, object, relation));
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.syncing?.catch(() => {});
    await this.pruning?.catch(() => 0);
    await this.store.close();
  }
}
