/**
 * Answers of plain checks (no contextual tuples), remembered per index generation.
 *
 * A check's answer is a pure function of the model and the tuples. The service counts every
 * change it applies to its index or model (a write, a delete, a model install, a reload) as a new
 * generation; an answer is used only while the generation it was computed in is still current,
 * so a change makes every older answer unusable at once, on this node, before any read can see
 * the change. Other nodes see a write when they apply it from the change log, exactly as their
 * uncached reads do (service.ts). Checks with contextual tuples are never cached; invalid
 * questions throw and are never stored. The cache is an LRU bounded by --fga-check-cache-size
 * (0 turns it off).
 */
import { LRUCache } from 'lru-cache';
import type { CheckQuery } from './queries.js';

const SEP = '\u0000';

export class CheckCache {
  /** generation * 2 + answer, one number per entry: no object per cached answer. */
  private readonly answers: LRUCache<string, number>;

  constructor(readonly max: number) {
    this.answers = new LRUCache<string, number>({ max });
  }

  static key(q: CheckQuery): string {
    return q.user + SEP + q.relation + SEP + q.object;
  }

  /** The answer computed in `generation`, if there is one. */
  get(generation: number, key: string): boolean | undefined {
    const v = this.answers.get(key);
    if (v === undefined || Math.floor(v / 2) !== generation) return undefined;
    return v % 2 === 1;
  }

  set(generation: number, key: string, allowed: boolean): void {
    this.answers.set(key, generation * 2 + (allowed ? 1 : 0));
  }

  get size(): number {
    return this.answers.size;
  }
}
