/** The bounds of one check's evaluation: hops, nested computed relations, time, and the walks' sizes. */
import { ServiceError } from '../../../core/errors.js';

export const MAX_DEPTH = 25;
/**
 * Userset trees up to this many nodes are walked top-down (see the header). Measured on the bench
 * data set (bench/fga/engine-only.ts): 2 halved p50 and p99 against 32 at 1M tuples. Since hops
 * follow remembered index entries (tuple-index.ts), walking down is cheaper and the gap smaller:
 * uncached checks at 1M, 2 against 8 or 16: p50 30 against 32.5 µs; at 10k, 8 beats 2 (4.8
 * against 5.6 µs mean); kept at 2 for the big stores, where it matters most.
 */
export const SMALL_TREE = 2;
/**
 * A user reaching more usersets than this (a member of thousands of groups) is answered
 * top-down for the rest of the check: walking up would cost more than it saves.
 */
export const REACH_CAP = 4096;

/**
 * How long the evaluations of one request may run, in milliseconds. The engine runs on the
 * server's event loop: while a check runs, no login, token check or other request of this process
 * is served. Ordinary models answer in microseconds (bench/fga: a batch of 100 checks at 1M tuples
 * under 10 ms at p99), but a model dense in cycles can make one check run for a second or more
 * (random models of 32 relations over 20 objects: the worst check of a model took 0.3-1.2 s on
 * a 2-core VM, and a batch of 100 such checks would hold the loop for a minute). Past the limit
 * the request fails like a model too deep to resolve, as OpenFGA bounds a check's resolution. Admins write models, so this is a guard against
 * a model mistake taking the whole server down, not against callers.
 */
export const EVALUATION_TIME_LIMIT_MS = 1000;
/** The clock is read once per this many sub-questions (a power of two): cheap, and fine-grained enough. */
export const CLOCK_EVERY = 256;

export interface ResolverOptions {
  /**
   * When evaluation must stop, on `performance.now()`'s clock; resolvers of one request share one
   * (a batch with contextual tuples makes one per check). Default: EVALUATION_TIME_LIMIT_MS from
   * the resolver's creation.
   */
  deadline?: number;
  /** Userset trees up to this size are walked top-down; 0 walks every eligible one bottom-up (tests). */
  smallTree?: number;
  /** Overrides REACH_CAP (tests). */
  reachCap?: number;
}

/**
 * Computed relations of the same object (`define r2: r1`) nested at once, over the whole
 * resolution. They are not hops (OpenFGA counts only dispatches), but each is a frame of this
 * recursive evaluator: a model chaining 1400 of them would overflow the stack, a 500. A model needs far fewer than this; more is the same 400 as too many hops.
 */
export const MAX_COMPUTED_NESTING = 256;

/** The deadline of a request that starts now (ResolverOptions.deadline). */
export const deadlineFromNow = (ms = EVALUATION_TIME_LIMIT_MS): number => performance.now() + ms;

export class DepthExceededError extends ServiceError {
  /** True when too many hops, not too many nested computed relations, caused it (see `failed`). */
  readonly hops: boolean;
  constructor(what?: string) {
    super(
      'invalid_argument',
      `authorization model resolution too complex: ${what ?? `more than ${MAX_DEPTH} nested hops`}`,
    );
    this.hops = what === undefined;
  }
}

/**
 * The hop-limit failure as branches throw and catch it inside one check: one instance, made once.
 * A dense cyclic model fails on the limit along thousands of branches, and each `new` Error
 * recorded a stack trace of the deep recursion (V8 translating optimized frames): on the dense
 * model of test/plugins/fga/engine/time-limit.test.ts a failing check took 196-268 ms with
 * them, 139-231 ms without. `check` hands its caller an error of its own.
 */
export const HOP_LIMIT = new DepthExceededError();
