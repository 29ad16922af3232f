/**
 * The durable side of FGA: model versions (append-only), tuples, and a change log with a
 * gap-free monotonic sequence. Evaluation never reads a store directly: each node keeps an
 * index (engine/tuple-index.ts) loaded from `snapshot()` and advanced with `changesSince()`.
 */
import type { UnitOfWork } from '../../../core/unit-of-work.js';
import type { Tuple } from '../engine/types.js';

export interface StoredModel {
  id: string;
  dsl: string;
}

export type Change =
  | { seq: number; op: 'write' | 'delete'; tuple: Tuple }
  | { seq: number; op: 'model'; model: StoredModel }
  | { seq: number; op: 'reset' }
  /** Many tuples arrived at once (a bulk import): nodes reload a snapshot instead of replaying. */
  | { seq: number; op: 'reload' };

export interface Snapshot {
  model: StoredModel | null;
  tuples: Tuple[];
  /** The change sequence the snapshot is consistent with. */
  seq: number;
}

export interface ReadFilter {
  user?: string;
  relation?: string;
  /** `type:id`, or `type:` for every object of a type (OpenFGA Read). */
  object?: string;
}

export interface TuplePage {
  tuples: Tuple[];
  /** Empty when there is no further page. */
  continuationToken: string;
}

export interface FgaStore {
  readonly kind: 'memory' | 'sql';
  latestModel(): Promise<StoredModel | null>;
  /** Appends a model version and returns it. */
  installModel(dsl: string): Promise<StoredModel>;
  /**
   * Applies writes and deletes atomically, or nothing: writing a tuple that exists or deleting
   * one that does not is an `invalid_argument` (OpenFGA Write).
   */
  /**
   * `modelId`: the model the writes were validated against. Checked under the same lock that
   * orders the write in the log, so no write lands after another model (or a reset) took over
   * without being validated against it: ModelChangedError (store-rules.ts) instead.
   */
  writeTuples(writes: readonly Tuple[], deletes: readonly Tuple[], modelId?: string): Promise<void>;
  /**
   * Bulk import: adds tuples (already validated; ones that exist are left alone) in one
   * transaction with multi-row inserts, logging a single `reload` change instead of one per tuple.
   */
  importTuples(tuples: readonly Tuple[], modelId?: string): Promise<void>;
  readTuples(filter: ReadFilter, pageSize: number, continuationToken?: string): Promise<TuplePage>;
  countTuples(): Promise<number>;
  /**
   * Deletes every model version; refused (failed_precondition) while tuples exist. `within`
   * (the reset's event, `events.emitWithin`) adds its rows to a unit of work of the main
   * database that the reset's own transaction commits: the reset and its rows are stored
   * together or not at all. Only a store kept in the main database can do that: the answer is
   * true then, and false for a store of its own (memory, or a database at `--fga-store-url`),
   * which never calls `within` because no one transaction spans two databases.
   */
  reset(within?: (unit: UnitOfWork) => Promise<void>): Promise<boolean>;
  snapshot(): Promise<Snapshot>;
  /** Changes after `seq`, oldest first, at most `limit`; null when the log no longer reaches back. */
  changesSince(seq: number, limit: number): Promise<Change[] | null>;
  /**
   * Deletes change-log entries written before `before` (ms since epoch), always keeping the
   * newest one so that a node behind the log sees a gap (and reloads) rather than silence.
   * Returns how many entries went.
   */
  pruneChanges(before: number): Promise<number>;
  close(): Promise<void>;
}
