/**
 * Answers of plain checks (no contextual tuples), remembered per index generation.
 *
 * A check's answer is a pure function of the model and the tuples. The service counts every
 * change it applies to its index or model (a write, a delete, a model install, a reload) as a new
 * generation; an answer is used only while the generation it was computed in is still current,
 * so a change makes every older answer unusable at once, on this node, before any read can see
 * the change. Other nodes see a write when they apply it from the change log, exactly as their
 * uncached reads do (service.ts). Checks with contextual tuples are never cached; invalid
 * questions throw and are never stored. At most --fga-check-cache-size answers are kept (0 turns
 * the cache off).
 *
 * The table is two-way set-associative: a question hashes (over its three strings, seeded per
 * process) to a set of two slots, each holding the question's own user, relation and object and
 * compared in full, so a hash collision costs a miss, never a wrong answer. A new answer takes the
 * set's empty or less recently stored slot. Unlike a Map keyed by a joined string (with an LRU
 * list on top, as before), a lookup builds no key, and a miss (the common case when questions do
 * not repeat) stores three references and a number: measured ~2 us less per missed check.
 *
 * An answer is stored only at its question's second sighting: the first one leaves just the
 * question's hash in a table of numbers (`sighted`, direct-mapped, as many entries as slots).
 * Why: a stored answer keeps the request's three strings alive until it is evicted, long enough
 * to be promoted to the old generation; with questions that never repeat (the bench's all-distinct
 * rows, a crawler) every request left old-generation garbage behind, and at 1M tuples the server's
 * heap is ~700 MB, where each major GC is expensive. A question asked again is answered from the
 * cache from its third time on. Two questions sharing a hash (or a question whose hash is 0, the
 * table's initial value) only make one stored at its first sighting (stored questions are still
 * compared in full).
 */
import { randomInt } from 'node:crypto';
import type { CheckQuery } from './queries.js';

type Question = Pick<CheckQuery, 'user' | 'relation' | 'object'>;

/** FNV-1a step over one string, then a separator (so `a`+`bc` and `ab`+`c` hash apart). */
function mix(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return Math.imul(h ^ 0xffff, 0x01000193);
}

function hashOf(seed: number, q: Question): number {
  return mix(mix(mix(seed, q.user), q.relation), q.object) >>> 0;
}

export class CheckCache {
  /** Slots per set: 2, or 1 for a cache of one answer. */
  private readonly ways: number;
  private readonly sets: number;
  private readonly users: (string | undefined)[];
  private readonly relations: (string | undefined)[];
  private readonly objects: (string | undefined)[];
  /** Each slot's question's hash, compared first: a miss then reads no stored string. */
  private readonly hashes: Uint32Array;
  /** generation * 2 + answer, per slot. */
  private readonly answers: Float64Array;
  /** Per set: which of its two slots to fill next (the other holds the newer answer). */
  private readonly next: Uint8Array;
  /** Hashes of questions seen once, by hash modulo its size (see the header). */
  private readonly sighted: Uint32Array;
  private readonly seed = randomInt(0x7fffffff);
  private used = 0;

  constructor(readonly max: number) {
    this.ways = Math.min(2, Math.max(1, max));
    this.sets = Math.max(1, Math.floor(max / this.ways));
    const slots = this.sets * this.ways;
    this.users = new Array<string | undefined>(slots).fill(undefined);
    this.relations = new Array<string | undefined>(slots).fill(undefined);
    this.objects = new Array<string | undefined>(slots).fill(undefined);
    this.hashes = new Uint32Array(slots);
    this.answers = new Float64Array(slots);
    this.next = new Uint8Array(this.sets);
    this.sighted = new Uint32Array(slots);
  }

  private slotOf(q: Question, hash: number, first: number): number {
    for (let s = first; s < first + this.ways; s++) {
      if (
        this.hashes[s] === hash &&
        this.users[s] === q.user &&
        this.objects[s] === q.object &&
        this.relations[s] === q.relation
      )
        return s;
    }
    return -1;
  }

  /** The hash `get` and `set` take: worked out once per question, since a miss is followed by a store. */
  hash(q: Question): number {
    return hashOf(this.seed, q);
  }

  /** The answer to `q` (whose `hash` is given) computed in `generation`, if there is one. */
  get(generation: number, q: Question, hash = this.hash(q)): boolean | undefined {
    const s = this.slotOf(q, hash, (hash % this.sets) * this.ways);
    if (s < 0) return undefined;
    const v = this.answers[s];
    if (Math.floor(v / 2) !== generation) return undefined;
    return v % 2 === 1;
  }

  set(generation: number, q: Question, allowed: boolean, hash = this.hash(q)): void {
    const set = hash % this.sets;
    const first = set * this.ways;
    let s = this.slotOf(q, hash, first);
    if (s < 0) {
      const seen = hash % this.sighted.length;
      if (this.sighted[seen] !== hash) {
        this.sighted[seen] = hash;
        return;
      }
      // An empty slot first; else the one stored longer ago.
      s =
        this.users[first] === undefined
          ? first
          : this.ways === 2 && this.users[first + 1] === undefined
            ? first + 1
            : first + this.next[set];
      if (this.users[s] === undefined) this.used++;
      this.hashes[s] = hash;
      this.users[s] = q.user;
      this.relations[s] = q.relation;
      this.objects[s] = q.object;
    }
    if (this.ways === 2) this.next[set] = s === first ? 1 : 0;
    this.answers[s] = generation * 2 + (allowed ? 1 : 0);
  }

  /** How many answers are stored (of any generation). */
  get size(): number {
    return this.used;
  }
}
