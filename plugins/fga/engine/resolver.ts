/**
 * Check: does `user` have `relation` on `object`? OpenFGA semantics: direct tuples (only those
 * the current model admits), `type:*` wildcards, usersets both as tuple users and as the checked
 * user, computed relations, tuple-to-userset (parents whose type lacks the relation are
 * skipped), union, intersection and exclusion.
 *
 * One Resolver serves one request and remembers every sub-question it answered, so a batch or a
 * list never evaluates the same `(object, relation, user)` twice. A sub-question met again while
 * still being evaluated is a cycle and counts as false; an answer that relied on such an
 * assumption about an outer question is only reused while that outer question is still open,
 * which keeps the result the least fixed point (what a cycle-free derivation can prove).
 * More than MAX_DEPTH nested dispatches (hops to another object: usersets and tuple-to-userset;
 * computed relations of the same object are not hops, as in OpenFGA) is an error (resolve depth 25); a
 * remembered answer carries how deep its evaluation went and is refused where evaluating it
 * afresh would pass the limit, so a batch answers each check as that check alone would be.
 * In a model with a cycle through a `but not` (not stratified, stratified.ts) answers can depend
 * on which question was asked first: there each check starts from a memory of its own.
 *
 * Closed direct relations (like `member: [user, group#member]`, see compiled-model.ts) are
 * answered bottom-up: the set of usersets the user reaches through fitting tuples (`reach`,
 * computed once per user, and on the node's own index kept between checks: kept-reach.ts) contains the node or not. That costs the user's own
 * memberships instead of the whole tree below a big group (trees of up to SMALL_TREE nodes, and users reaching more
 * than REACH_CAP usersets, are still walked top-down). It is used only on the node's own
 * index (not with contextual tuples) and only where the top-down walk would neither exceed the
 * depth limit nor meet a cycle (userset-heights.ts), so answers and errors stay the same.
 */
import { ServiceError } from '../../../core/errors.js';
import { COMPUTED, EXCLUSION, INTERSECTION, THIS, TTU, UNION, type RelationPlan, type Step } from './check-plan.js';
import type { CompiledModel } from './compiled-model.js';
import { DirectUsers } from './direct-users.js';
import { frontierOf, type Frontier } from './frontier.js';
import type { Reached, UserReach } from './kept-reach.js';
import { TupleIndex, type ObjectTuples } from './tuple-index.js';
import type { TupleReader } from './tuple-reader.js';
import { shapeOf, typeOf } from './tuple-format.js';
import type { UsersetHeights } from './userset-heights.js';

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
const CLOCK_EVERY = 256;

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
 * recursive evaluator: a model chaining 1400 of them overflowed the stack, a 500 (review
 * finding). A model needs far fewer than this; more is the same 400 as too many hops.
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
const HOP_LIMIT = new DepthExceededError();

interface TaintedAnswer {
  /** Stack heights of the open questions this answer assumed false, ascending. */
  heights: number[];
  /**
   * Ids of the frames at those heights. The answer stands while each of them is open, or closed
   * false (its assumption was right) with its own assumptions standing in turn (`standing`).
   * Kept only while the outermost was open, an answer outlived an inner question it assumed
   * false after that question closed true (review finding: `s: p or x`, `x: s or d`,
   * `p: x and s` with `d` true answered `p` false); kept only while all were open, a model dense
   * in cycles was evaluated once per path and a check ran for minutes (review finding).
   */
  frames: number[];
  value: boolean;
  /** How many hops below the question its evaluation went (see `answered`). */
  below: number;
  /**
   * Set when the question failed on the hop limit at this depth: while the question it assumed
   * false is still open, it fails again at once as deep or deeper (as FAILED for clean ones).
   * Without it, a lattice of usersets past the limit with a cycle back to the top was evaluated
   * once per path, 2^K times (a test with a cycle at every node).
   */
  failedAt?: number;
}

/**
 * Per object and relation slot (check-plan.ts): not asked yet (0), open at stack height
 * `state - OPEN`, or answered: a negative number holding the answer and how many hops below
 * the question its evaluation went. A remembered answer is reused only where evaluating it
 * afresh would stay within MAX_DEPTH, so an answer found for one check of a batch never lets
 * another check skip the depth limit it would hit on its own.
 */
const UNKNOWN = 0;
const OPEN = 3;
/**
 * Failed on the hop limit at depth `state - FAILED`, with nothing assumed about an open question.
 * Asked again as deep or deeper it fails again at once (every branch only goes deeper, so none
 * can decide where none did); asked shallower it is evaluated afresh. Without this, a lattice of
 * usersets past the limit was evaluated once per path, 2^K times (review finding).
 */
const FAILED = 1 << 30;
const answered = (value: boolean, below: number): number => -(1 + 2 * below + (value ? 1 : 0));
const answerOf = (state: number): boolean => ((-state - 1) & 1) === 1;
const belowOf = (state: number): number => (-state - 1) >> 1;

/** No open question assumed (see `Resolver.standing`). */
const EMPTY: readonly number[] = Object.freeze([]);

/** `heights` (ascending, owned by the caller) with `h` added. */
function withHeight(heights: number[] | undefined, h: number): number[] {
  if (heights === undefined) return [h];
  let i = heights.length;
  while (i > 0 && heights[i - 1] > h) i--;
  if (i === 0 || heights[i - 1] !== h) heights.splice(i, 0, h);
  return heights;
}

/** `heights` with every height of `more` added; `more` itself is never changed or kept. */
function withHeights(heights: number[] | undefined, more: readonly number[] | undefined): number[] | undefined {
  if (more === undefined) return heights;
  if (heights === undefined) return more.slice();
  for (const h of more) heights = withHeight(heights, h);
  return heights;
}

/**
 * The heights below `height` (the frame that is closing: its own question and those opened
 * inside it are no longer open), or undefined when none are. Truncates `heights` in place: the
 * closing frame owns it.
 */
function below(heights: number[] | undefined, height: number): number[] | undefined {
  if (heights === undefined) return undefined;
  let n = heights.length;
  while (n > 0 && heights[n - 1] >= height) n--;
  if (n === 0) return undefined;
  heights.length = n;
  return heights;
}

/** A walk up that found no userset (never added to: walks build their own map). */
const NOTHING_REACHED: Reached = new Map();

/** What a resolver remembers of one checked user. */
interface UserMemory {
  memo: Map<string, number[]>;
  reached: UserReach | undefined;
}

export class Resolver {
  /**
   * What is known by checked user, then by object: one state per relation of the object's type
   * (`RelationPlan.slot`). Keyed by the object string as given or as kept in the index's views,
   * whose hash is computed once, instead of an `object#relation` string built per sub-question.
   */
  private memo = new Map<string, number[]>();
  /** The memories of the other users checked by this resolver (a batch may name several). */
  private others: Map<string, UserMemory> | undefined;
  /** Within one check (cleared at its start): answers that assumed an open question false, by `object#relation`. */
  private tainted: Map<string, TaintedAnswer> | undefined;
  /** Ids of the open frames, by stack height. */
  private readonly frames: number[] = [];
  /** Within one check: frames some question found open (a cycle), by id; only these can be assumed. */
  private cycled: Set<number> | undefined;
  /**
   * Within one check: frames found open by a cycle that then closed false, by id, with what
   * their own answer assumed (null: nothing). An answer that assumed such a frame false stands
   * on those assumptions instead.
   */
  private closedFalse: Map<number, TaintedAnswer | null> | undefined;
  /**
   * What `standing` found for closed frames, by id: without it, chains of frames that closed
   * false were followed once per path, and a check of a model dense in cycles took seconds with
   * a few dozen evaluations. A closed frame's outcome never changes; what it rests on is a set
   * of open frames, which holds while the innermost of them is still open (`top`).
   */
  private standingOf: Map<number, { on: readonly number[] | null; top: number }> | undefined;
  private nextFrame = 1;
  /** Stack heights of the open questions the evaluation in progress assumed false, ascending (undefined: none). */
  private assumed: number[] | undefined;
  /** Deepest hop reached by the evaluation in progress (a remembered answer counts as deep as its evaluation went). */
  private deepest = 0;
  /** Sub-questions evaluated (not served from memory); exposed for tests and metrics. */
  evaluations = 0;
  /** Computed relations being evaluated one inside another (MAX_COMPUTED_NESTING). */
  private computedNesting = 0;
  private readonly heights: UsersetHeights | undefined;
  /** The node's own index when reading it directly (no contextual tuples): one probe per object, parsed views kept. */
  private readonly index: TupleIndex | undefined;
  /**
   * Closed direct relation -> the nodes leading into it that the checked user reaches (see
   * `reach`); on the node's own index, the map kept there for the user between checks.
   */
  private reached: UserReach | undefined;

  private readonly smallTree: number;
  private readonly reachCap: number;
  private readonly deadline: number;
  /** Sub-questions met, answered from memory or not (the clock is read every CLOCK_EVERY of them). */
  private steps = 0;
  private user = '';
  private userShape = '';
  private userIsSet = false;
  /** Frontiers (frontier.ts) may stand for parent walks: the node's own index, a stratified model, a plain checked user. */
  private frontiersOn = false;
  private userWildcard = '';
  /** For a userset user `type:id#relation`: its object and relation (the self-defining userset). */
  private userObject = '';
  private userRelation = '';

  constructor(
    readonly model: CompiledModel,
    readonly reader: TupleReader,
    options: ResolverOptions = {},
  ) {
    this.smallTree = options.smallTree ?? SMALL_TREE;
    this.reachCap = options.reachCap ?? REACH_CAP;
    this.deadline = options.deadline ?? deadlineFromNow();
    if (reader instanceof TupleIndex) {
      this.index = reader;
      if (model.hasClosedDirect) this.heights = reader.usersetHeights(model, MAX_DEPTH);
    }
  }

  /** Entry point; `object` is `type:id`, `user` any tuple user form. Inputs must be validated. */
  check(object: string, relation: string, user: string): boolean {
    this.assumed = undefined;
    this.deepest = 0;
    // Validated users are never empty: '' means no check has set one up yet.
    const first = this.user === '';
    if (first || user !== this.user) this.switchUser(user, first);
    // With a cycle through a `but not`, what one question remembers could change another's
    // answer (stratified.ts): every check starts from a memory of its own.
    else if (!this.model.stratified && this.memo.size > 0) this.memo = new Map();
    this.tainted?.clear();
    this.cycled?.clear();
    this.closedFalse?.clear();
    this.standingOf?.clear();
    const plan = this.model.plan(typeOf(object), relation);
    try {
      return this.resolve(object, relation, plan, 0, this.index?.tuplesOf(object));
    } catch (err) {
      throw err === HOP_LIMIT ? new DepthExceededError() : err;
    }
  }

  /**
   * Sets up the memory of `user`: the checked user is the same in every sub-question, so its
   * shape and wildcard are worked out once; a resolver usually serves one user, and keeps the
   * others' memories aside only when a batch names several.
   */
  private switchUser(user: string, first: boolean): void {
    if (!first) {
      this.others ??= new Map();
      this.others.set(this.user, { memo: this.memo, reached: this.reached });
    }
    const kept = this.others?.get(user);
    this.memo = (this.model.stratified ? kept?.memo : undefined) ?? new Map();
    this.reached = kept?.reached;
    this.user = user;
    this.userShape = shapeOf(user);
    this.userIsSet = user.includes('#');
    // A userset as the checked user is granted by every node it names along the walk (the
    // self-defining rule in `resolve`), which a frontier does not list.
    this.frontiersOn = this.index !== undefined && this.model.stratified && !this.userIsSet;
    this.userWildcard = this.userIsSet ? '' : `${typeOf(user)}:*`;
    const h = user.lastIndexOf('#');
    this.userObject = this.userIsSet ? user.slice(0, h) : '';
    this.userRelation = this.userIsSet ? user.slice(h + 1) : '';
  }

  /**
   * The users of `object#relation` with their parsed views: from the object's entry in the index
   * (`tuples`, which callers pass along so an object is looked up once), or built from the reader.
   */
  private usersOf(object: string, relation: string, tuples: ObjectTuples | undefined): DirectUsers | undefined {
    if (this.index) return tuples?.relations.get(relation);
    const key = `${object}#${relation}`;
    const plain = this.reader.directUsers(key);
    const sets = this.reader.usersetUsers(key);
    return plain || sets ? new DirectUsers(plain, sets) : undefined;
  }

  /**
   * `plan` is the model's plan of `relation` on the object's type (undefined: the type lacks it);
   * `tuples` the object's entry in the index (undefined without one, or when reading another reader).
   */
  private resolve(
    object: string,
    relation: string,
    plan: RelationPlan | undefined,
    depth: number,
    tuples: ObjectTuples | undefined,
  ): boolean {
    // Not a hop failure: failedBranch lets no sibling go on after it, so the request ends here.
    if ((++this.steps & (CLOCK_EVERY - 1)) === 0 && performance.now() > this.deadline)
      throw new DepthExceededError(`evaluation ran longer than ${EVALUATION_TIME_LIMIT_MS} ms`);
    let states = plan && this.memo.get(object);
    const state = states ? states[plan!.slot] : UNKNOWN;
    // A remembered answer is reused where its deciding branches still fit the limit; deeper, it is
    // evaluated afresh, where another branch may decide within the limit (review finding: a batch
    // gave the depth error where each check alone was true).
    if (state < 0 && depth + belowOf(state) <= MAX_DEPTH) return this.reuse(answerOf(state), depth + belowOf(state));
    if (state >= FAILED && depth >= state - FAILED) throw HOP_LIMIT;
    const t =
      this.tainted !== undefined && this.tainted.size > 0 ? this.tainted.get(`${object}#${relation}`) : undefined;
    const stands = t && this.standing(t.heights, t.frames);
    if (stands !== undefined && stands !== null) {
      if (stands !== EMPTY) this.assumed = withHeights(this.assumed, stands);
      if (t!.failedAt !== undefined) {
        if (depth >= t!.failedAt) throw HOP_LIMIT;
      } else if (depth + t!.below <= MAX_DEPTH) return this.reuse(t!.value, depth + t!.below);
    }
    if (state >= OPEN && state < FAILED) {
      // A cycle: this question is already being asked further up.
      const openAt = state - OPEN;
      this.assumed = withHeight(this.assumed, openAt);
      (this.cycled ??= new Set()).add(this.frames[openAt]);
      return false;
    }
    if (depth > MAX_DEPTH) throw HOP_LIMIT;
    if (depth > this.deepest) this.deepest = depth;
    // `group:x#member` has `member` on `group:x` by definition (OpenFGA self-defining userset).
    if (this.userIsSet && relation === this.userRelation && object === this.userObject) return true;
    if (!plan) return false;
    if (!states) this.memo.set(object, (states = plan.blank.slice()));
    const slot = plan.slot;
    // A closed relation's users, looked up once for both the walk up and the top-down step.
    let users: DirectUsers | undefined | null = null;
    if (plan.closed && this.heights) {
      users = tuples?.relations.get(relation);
      // Without usersets below (height 0) the direct lookup of the top-down walk is cheaper.
      if (users?.sets) {
        const below = this.heights.at(users, object, relation);
        // A small tree below is cheaper to walk down than the user's memberships up.
        const reached = depth + below.height <= MAX_DEPTH && below.size > this.smallTree ? this.reach(plan) : null;
        if (reached) {
          this.evaluations++;
          const value = reached.get(plan)?.has(object) ?? false;
          // As deep as the walk down it stands for would have gone.
          states[slot] = answered(value, below.height);
          if (depth + below.height > this.deepest) this.deepest = depth + below.height;
          return value;
        }
      }
    }
    const height = this.frames.length;
    const frame = this.nextFrame++;
    this.frames.push(frame);
    states[slot] = OPEN + height;
    const outerAssumed = this.assumed;
    this.assumed = undefined;
    const outerDeepest = this.deepest;
    this.deepest = depth;
    let value: boolean;
    let failedAt = -1;
    try {
      this.evaluations++;
      // A closed relation's rewrite is its direct step (compiled-model.ts).
      value =
        users !== null ? this.direct(plan, users, depth) : this.rewrite(plan.rewrite, plan, object, tuples, depth);
    } catch (err) {
      // A depth error on its way to a union or intersection that may still decide without it
      // (`failedBranch`): what this evaluation assumed and how deep it went stay counted outside
      // it, and a failure on the hop limit that assumed nothing is remembered (FAILED).
      const inner = below(this.assumed, height);
      if (err instanceof DepthExceededError && err.hops) {
        let kept: TaintedAnswer | null = null;
        if (inner === undefined) failedAt = depth;
        else kept = this.remember(object, relation, inner, false, 0, depth);
        // Not found true either: answers that assumed it false stand on what it assumed, as for
        // one that closed false. (Invalidated instead, a model whose cycles reach the hop limit
        // was evaluated once per path: 240,000 evaluations where 400 did.)
        if (this.cycled !== undefined && this.cycled.has(frame)) (this.closedFalse ??= new Map()).set(frame, kept);
      }
      this.assumed = withHeights(outerAssumed, inner);
      if (outerDeepest > this.deepest) this.deepest = outerDeepest;
      throw err;
    } finally {
      states[slot] = failedAt >= 0 ? FAILED + failedAt : UNKNOWN;
      this.frames.pop();
    }
    const deepestBelow = this.deepest - depth;
    if (outerDeepest > this.deepest) this.deepest = outerDeepest;
    const inner = below(this.assumed, height);
    // An answer that assumed open questions false is kept only while they are open: a false one
    // always; a true one too in a model with a cycle through a `but not`, where the assumption
    // can have made it true. In a stratified model a true answer stays true.
    let kept: TaintedAnswer | null = null;
    if (inner === undefined || (value && this.model.stratified)) {
      states[slot] = answered(value, deepestBelow);
      this.assumed = outerAssumed;
    } else {
      kept = this.remember(object, relation, inner, value, deepestBelow, undefined);
      this.assumed = withHeights(outerAssumed, inner);
    }
    // Answers that assumed this question false were right to: they stand on what it assumed.
    if (!value && this.cycled !== undefined && this.cycled.has(frame))
      (this.closedFalse ??= new Map()).set(frame, kept);
    return value;
  }

  /** Keeps an answer that assumed the open questions at `heights` false (see `standing`). */
  private remember(
    object: string,
    relation: string,
    heights: number[],
    value: boolean,
    below: number,
    failedAt: number | undefined,
  ): TaintedAnswer {
    const kept: TaintedAnswer = { heights, frames: heights.map((h) => this.frames[h]), value, below, failedAt };
    (this.tainted ??= new Map()).set(`${object}#${relation}`, kept);
    return kept;
  }

  /**
   * Whether an answer that assumed the frames `ids` (at `heights`) false still stands, and on
   * which open questions: null when one of them closed true or failed (the answer must be
   * evaluated afresh); else the heights of the open questions it now rests on (EMPTY: none). A
   * frame that closed false passes its own assumptions on.
   */
  private standing(heights: readonly number[], ids: readonly number[]): readonly number[] | null {
    const top = heights.length - 1;
    // All open, the common case: the innermost open means every one below it is the same frame.
    if (this.frames[heights[top]] === ids[top]) return heights;
    let out: number[] | undefined;
    for (let i = 0; i <= top; i++) {
      if (this.frames[heights[i]] === ids[i]) {
        out = withHeight(out, heights[i]);
        continue;
      }
      const via = this.closedStanding(ids[i]);
      if (via === null) return null;
      if (via !== EMPTY) out = withHeights(out, via);
    }
    return out ?? EMPTY;
  }

  /** `standing` of a closed frame: null unless it closed false; else what its own answer rests on now. */
  private closedStanding(id: number): readonly number[] | null {
    const known = this.standingOf?.get(id);
    if (
      known !== undefined &&
      (known.on === null || known.on === EMPTY || this.frames[known.on[known.on.length - 1]] === known.top)
    )
      return known.on;
    const closed = this.closedFalse?.get(id);
    const on = closed === undefined ? null : closed === null ? EMPTY : this.standing(closed.heights, closed.frames);
    (this.standingOf ??= new Map()).set(id, {
      on,
      top: on === null || on === EMPTY ? 0 : this.frames[on[on.length - 1]],
    });
    return on;
  }

  /** A remembered answer whose evaluation reached `deepest` from here: refused past MAX_DEPTH, as evaluating it afresh would be. */
  private reuse(value: boolean, deepest: number): boolean {
    if (deepest > MAX_DEPTH) throw HOP_LIMIT;
    if (deepest > this.deepest) this.deepest = deepest;
    return value;
  }

  private rewrite(
    step: Step,
    plan: RelationPlan,
    object: string,
    tuples: ObjectTuples | undefined,
    depth: number,
  ): boolean {
    switch (step.kind) {
      case THIS:
        return this.direct(plan, this.usersOf(object, plan.name, tuples), depth);
      case COMPUTED: {
        // The same object under another relation is not a hop: OpenFGA resolves a computed
        // userset without a dispatch ("we don't want to increase resolution depth",
        // internal/graph/check.go), so `define m2: member` reaches as deep as `member` does
        // (review finding: a chain of computed relations was a depth error here). Cycles through
        // computed relations still end, at the question already open (`resolve`).
        const target = step.target;
        if (target === undefined) return false;
        if (this.computedNesting >= MAX_COMPUTED_NESTING)
          throw new DepthExceededError(`more than ${MAX_COMPUTED_NESTING} nested computed relations`);
        this.computedNesting++;
        try {
          return this.resolve(object, target.name, target, depth, tuples);
        } finally {
          this.computedNesting--;
        }
      }
      case TTU: {
        const parents = this.usersOf(object, step.tupleset, tuples);
        if (!parents) return false;
        // Only plain objects of a type the tupleset admits and that defines the relation (check-plan.ts).
        let failure: DepthExceededError | undefined;
        for (const p of parents.objects()) {
          const computed = step.parents!.get(p.type);
          if (computed === undefined) continue;
          const mark = this.deepest;
          try {
            // What the parent and its own parents grant, kept across requests (frontier.ts),
            // where the walk it stands for could neither fail nor meet a cycle.
            if (this.frontiersOn && computed.frontier) {
              const f = frontierOf(this.index!, this.model, this.heights, p, computed, MAX_DEPTH);
              if (f !== null && depth + 1 + f.deepest <= MAX_DEPTH) {
                if (this.viaFrontier(f, depth + 1)) return true;
                continue;
              }
            }
            if (this.resolve(p.object, computed.name, computed, depth + 1, this.index?.tuplesAt(p))) return true;
          } catch (err) {
            failure = this.failedBranch(err, mark, failure);
          }
        }
        if (failure) throw failure;
        return false;
      }
      // Branches decide as OpenFGA's concurrent ones do (`failedBranch`): a true branch of a union
      // (a false one of an intersection) decides even when another failed on the depth limit.
      case UNION: {
        let failure: DepthExceededError | undefined;
        for (const c of step.children) {
          const mark = this.deepest;
          try {
            if (this.rewrite(c, plan, object, tuples, depth)) return true;
          } catch (err) {
            failure = this.failedBranch(err, mark, failure);
          }
        }
        if (failure) throw failure;
        return false;
      }
      case INTERSECTION: {
        let failure: DepthExceededError | undefined;
        for (const c of step.children) {
          const mark = this.deepest;
          try {
            if (!this.rewrite(c, plan, object, tuples, depth)) return false;
          } catch (err) {
            failure = this.failedBranch(err, mark, failure);
          }
        }
        if (failure) throw failure;
        return true;
      }
      case EXCLUSION: {
        // A base that is false, or a subtracted side that is true, decides even when the other
        // side failed on the depth limit; otherwise a failure is the answer.
        let failure: DepthExceededError | undefined;
        let mark = this.deepest;
        try {
          if (!this.rewrite(step.children[0], plan, object, tuples, depth)) return false;
        } catch (err) {
          failure = this.failedBranch(err, mark, failure);
        }
        mark = this.deepest;
        try {
          if (this.rewrite(step.children[1], plan, object, tuples, depth)) return false;
        } catch (err) {
          failure = this.failedBranch(err, mark, failure);
        }
        if (failure) throw failure;
        return true;
      }
    }
    return false;
  }

  /**
   * The walk of a parent at `depth` through its frontier: its plain users, then its usersets
   * (closed relations, answered as ever). Counted as deep as the walk could have gone, so a
   * remembered answer is reused only where that walk would fit.
   */
  private viaFrontier(f: Frontier, depth: number): boolean {
    this.evaluations++;
    if (depth + f.deepest > this.deepest) this.deepest = depth + f.deepest;
    const user = this.user;
    if (f.plain.has(user) || (this.userWildcard !== user && f.plain.has(this.userWildcard))) return true;
    const index = this.index!;
    for (const s of f.sets) {
      // The usersets the user reaches, walked up once (`reach`, kept between checks): a probe of a small
      // set instead of a visit to each group. Within the limit and without a cycle (the
      // frontier's precondition), that set is exactly what the walk down would find.
      const reached = this.reach(s.target);
      if (reached !== null) {
        if (reached.get(s.target)?.has(s.view.object) === true) return true;
        continue;
      }
      if (this.resolve(s.view.object, s.view.relation, s.target, depth + 1, index.tuplesAt(s.view))) return true;
    }
    return false;
  }

  private direct(plan: RelationPlan, users: DirectUsers | undefined, depth: number): boolean {
    if (!users) return false;
    const allowed = plan.allowed;
    const user = this.user;
    const plain = users.plain;
    if (plain && !this.userIsSet) {
      if (plain.has(user) && allowed.has(this.userShape)) return true;
      const wildcard = this.userWildcard;
      if (wildcard !== user && plain.has(wildcard) && allowed.has(wildcard)) return true;
    }
    const sets = users.sets;
    if (!sets) return false;
    if (this.userIsSet && sets.has(user) && allowed.has(this.userShape)) return true;
    let failure: DepthExceededError | undefined;
    for (const u of users.usersets()) {
      const target = plan.usersets.get(u.shape);
      if (target === undefined) continue;
      const mark = this.deepest;
      try {
        if (this.resolve(u.object, u.relation, target, depth + 1, this.index?.tuplesAt(u))) return true;
      } catch (err) {
        failure = this.failedBranch(err, mark, failure);
      }
    }
    if (failure) throw failure;
    return false;
  }

  /**
   * A branch of a union (or of the usersets and parents a relation fans out to), an intersection
   * or an exclusion failed. OpenFGA evaluates such branches at once and lets one whose answer
   * decides win over a sibling that failed on the depth limit (internal/graph/check.go `union`,
   * `intersection`, `exclusion`); evaluated in turn here, a depth failure is kept (the first one)
   * and the other branches still run: `a or b` with `a` too deep and `b` true is true, whatever
   * the order of the branches (review finding: it was an error). The failed branch is left out
   * of how deep the answer went, so a remembered answer stands for the branches that gave it.
   * Any other error goes on up.
   */
  private failedBranch(err: unknown, mark: number, first: DepthExceededError | undefined): DepthExceededError {
    // Only the hop limit, which failures remember (FAILED), lets the other branches go on. The
    // computed-nesting limit ends the check: it is not remembered (it depends on the path, not
    // the depth), and letting siblings go on past it walked a lattice once per path, 2^K times
    // (review finding).
    if (!(err instanceof DepthExceededError) || !err.hops) throw err;
    this.deepest = mark;
    return first ?? err;
  }

  /**
   * Every node of the closed direct relations leading into `target` that the checked user holds,
   * walking up from its own tuples (and its type's wildcard); null past the cap.
   */
  private reach(target: RelationPlan): Reached | null {
    // On the node's own index the walks are kept between checks (kept-reach.ts): the index
    // forgets a user's walks when a tuple they read changes. Only here, where a walk is needed.
    const byTarget = (this.reached ??= this.index
      ? this.index.reachOf(this.model, this.reachCap, this.user)
      : new Map());
    const known = byTarget.get(target);
    if (known !== undefined) return known;
    const reached: Reached = new Map();
    let count = 0;
    const user = this.user;
    const queue = [user];
    const shapes = [this.userShape];
    // A plain user also holds what `type:*` holds (direct(): wildcard tuples).
    if (!this.userIsSet && !this.userShape.endsWith(':*')) {
      queue.push(this.userWildcard);
      shapes.push(this.userWildcard);
    }
    for (let i = 0; i < queue.length; i++) {
      const u = queue[i];
      for (const rel of target.reachVia.get(shapes[i]) ?? []) {
        const ids = this.reader.objectIds(rel.type, rel.name, u);
        if (!ids) continue;
        let objects = reached.get(rel);
        if (!objects) reached.set(rel, (objects = new Set()));
        for (const id of ids) {
          const object = `${rel.type}:${id}`;
          if (objects.has(object)) continue;
          objects.add(object);
          queue.push(`${object}#${rel.name}`);
          shapes.push(rel.key);
          if (++count > this.reachCap) {
            byTarget.set(target, null);
            return null;
          }
        }
      }
    }
    // Most users of a big store hold no such userset; kept walks share one empty answer.
    const kept = reached.size === 0 ? NOTHING_REACHED : reached;
    byTarget.set(target, kept);
    return kept;
  }
}
