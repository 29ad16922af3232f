/**
 * `--fga-store memory`: everything in this process (tests, single-node demos). The change log
 * is kept only as a sequence number: there is no other node to tell.
 */
import { ServiceError } from '../../../core/errors.js';
import { newId } from '../../../storage/index.js';
import { tupleKey } from '../engine/tuple-format.js';
import type { Tuple } from '../engine/types.js';
import { checkModelInForce, checkWriteBatch, matchesFilter, pageOf, stillHasTuples } from './store-rules.js';
import type { Change, FgaStore, ReadFilter, Snapshot, StoredModel, TuplePage } from './types.js';

export class MemoryFgaStore implements FgaStore {
  readonly kind = 'memory' as const;
  private readonly models: StoredModel[] = [];
  /**
   * Each tuple with its ordinal, which only grows (like a primary key): the read order, and what
   * a continuation token names, so a delete between pages moves nothing (a position would).
   */
  private readonly tuples = new Map<string, { tuple: Tuple; ord: number }>();
  private nextOrd = 1;
  private log: Change[] = [];
  /** When each log entry was written (ms), aligned with `log`. */
  private logAt: number[] = [];
  private seq = 0;

  async latestModel(): Promise<StoredModel | null> {
    return this.models.at(-1) ?? null;
  }

  async installModel(dsl: string): Promise<StoredModel> {
    const model = { id: newId(), dsl };
    this.models.push(model);
    this.append({ seq: ++this.seq, op: 'model', model });
    return model;
  }

  async writeTuples(writes: readonly Tuple[], deletes: readonly Tuple[], modelId?: string): Promise<void> {
    checkModelInForce(modelId, this.models.at(-1) ?? null);
    checkWriteBatch(writes, deletes, (t) => this.tuples.has(tupleKey(t)));
    for (const t of deletes) {
      this.tuples.delete(tupleKey(t));
      this.append({ seq: ++this.seq, op: 'delete', tuple: t });
    }
    for (const t of writes) {
      this.store(t);
      this.append({ seq: ++this.seq, op: 'write', tuple: t });
    }
  }

  async importTuples(tuples: readonly Tuple[], modelId?: string): Promise<void> {
    checkModelInForce(modelId, this.models.at(-1) ?? null);
    for (const t of tuples) if (!this.tuples.has(tupleKey(t))) this.store(t);
    this.append({ seq: ++this.seq, op: 'reload' });
  }

  private store(t: Tuple): void {
    this.tuples.set(tupleKey(t), {
      tuple: { user: t.user, relation: t.relation, object: t.object },
      ord: this.nextOrd++,
    });
  }

  /** Tuples after the ordinal the token names, in ordinal order (the Map's order: ordinals only grow). */
  async readTuples(filter: ReadFilter, pageSize: number, token?: string): Promise<TuplePage> {
    const text = token ? Buffer.from(token, 'base64url').toString() : '0';
    const after = /^[0-9]{1,15}$/.test(text) ? Number(text) : -1;
    if (after < 0) throw new ServiceError('invalid_argument', 'invalid continuation_token');
    const out: Tuple[] = [];
    let last = after;
    let more = false;
    for (const { tuple, ord } of this.tuples.values()) {
      if (ord <= after || !matchesFilter(tuple, filter)) continue;
      if (out.length === pageSize) {
        more = true;
        break;
      }
      out.push(tuple);
      last = ord;
    }
    return pageOf(out, more ? Buffer.from(String(last)).toString('base64url') : '');
  }

  async countTuples(): Promise<number> {
    return this.tuples.size;
  }

  /** Kept in this process, not in the main database: no transaction holds the reset and its event (false). */
  async reset(): Promise<boolean> {
    if (this.tuples.size > 0) throw stillHasTuples();
    this.models.length = 0;
    this.append({ seq: ++this.seq, op: 'reset' });
    return false;
  }

  async snapshot(): Promise<Snapshot> {
    return { model: this.models.at(-1) ?? null, tuples: [...this.tuples.values()].map((e) => e.tuple), seq: this.seq };
  }

  private append(c: Change): void {
    this.log.push(c);
    this.logAt.push(Date.now());
  }

  async changesSince(seq: number, limit: number): Promise<Change[] | null> {
    const out = this.log.filter((c) => c.seq > seq).slice(0, limit);
    return out.length > 0 && out[0].seq !== seq + 1 ? null : out;
  }

  async pruneChanges(before: number): Promise<number> {
    let n = 0;
    while (n < this.log.length - 1 && this.logAt[n] < before) n++;
    this.log = this.log.slice(n);
    this.logAt = this.logAt.slice(n);
    return n;
  }

  async close(): Promise<void> {}
}
