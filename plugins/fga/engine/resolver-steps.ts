/**
 * The steps of a relation's rewrite, evaluated for one checked user: direct tuples (with `type:*`
 * wildcards and usersets), computed relations, tuple-to-userset, union, intersection and
 * exclusion. A sub-question about another object or relation goes back through `resolve`
 * (resolver.ts), which remembers answers and detects cycles.
 */
import { COMPUTED, EXCLUSION, INTERSECTION, THIS, TTU, UNION, type RelationPlan, type Step } from './check-plan.js';
import type { CompiledModel } from './compiled-model.js';
import { DirectUsers } from './direct-users.js';
import { frontierOf, type Frontier } from './frontier.js';
import type { Reached, UserReach } from './kept-reach.js';
import { TupleIndex, type ObjectTuples } from './tuple-index.js';
import type { TupleReader } from './tuple-reader.js';
import type { UsersetHeights } from './userset-heights.js';
import {
  deadlineFromNow,
  DepthExceededError,
  MAX_COMPUTED_NESTING,
  MAX_DEPTH,
  REACH_CAP,
  SMALL_TREE,
  type ResolverOptions,
} from './resolver-limits.js';
import { ResolverMemory } from './resolver-memory-state.js';

export abstract class RelationSteps extends ResolverMemory {
  /** Computed relations being evaluated one inside another (MAX_COMPUTED_NESTING). */
  protected computedNesting = 0;
  protected readonly heights: UsersetHeights | undefined;
  /** The node's own index when reading it directly (no contextual tuples): one probe per object, parsed views kept. */
  protected readonly index: TupleIndex | undefined;
  /**
   * Closed direct relation -> the nodes leading into it that the checked user reaches (see
   * `reach`); on the node's own index, the map kept there for the user between checks.
   */
  protected reached: UserReach | undefined;

  protected readonly smallTree: number;
  protected readonly reachCap: number;
  protected readonly deadline: number;
  /** Sub-questions met, answered from memory or not (the clock is read every CLOCK_EVERY of them). */
  protected steps = 0;
  protected user = '';
  protected userShape = '';
  protected userIsSet = false;
  /** Frontiers (frontier.ts) may stand for parent walks: the node's own index, a stratified model, a plain checked user. */
  protected frontiersOn = false;
  protected userWildcard = '';
  /** For a userset user `type:id#relation`: its object and relation (the self-defining userset). */
  protected userObject = '';
  protected userRelation = '';

  constructor(
    readonly model: CompiledModel,
    readonly reader: TupleReader,
    options: ResolverOptions = {},
  ) {
    super();
    this.smallTree = options.smallTree ?? SMALL_TREE;
    this.reachCap = options.reachCap ?? REACH_CAP;
    this.deadline = options.deadline ?? deadlineFromNow();
    if (reader instanceof TupleIndex) {
      this.index = reader;
      if (model.hasClosedDirect) this.heights = reader.usersetHeights(model, MAX_DEPTH);
    }
  }

  /** Entry point; `object` is `type:id`, `user` any tuple user form. Inputs must be validated. */

  protected abstract resolve(
    object: string,
    relation: string,
    plan: RelationPlan | undefined,
    depth: number,
    tuples: ObjectTuples | undefined,
  ): boolean;

  /** The usersets the checked user reaches into `target` (kept between checks), or null past the cap. */
  protected abstract reach(target: RelationPlan): Reached | null;

  /**
   * The users of `object#relation` with their parsed views: from the object's entry in the index
   * (`tuples`, which callers pass along so an object is looked up once), or built from the reader.
   */
  protected usersOf(object: string, relation: string, tuples: ObjectTuples | undefined): DirectUsers | undefined {
    if (this.index) return tuples?.relations.get(relation);
    const key = `${object}#${relation}`;
    const plain = this.reader.directUsers(key);
    const sets = this.reader.usersetUsers(key);
    return plain || sets ? new DirectUsers(plain, sets) : undefined;
  }

  protected rewrite(
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
        // (a chain of computed relations is no depth error). Cycles through
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
  protected viaFrontier(f: Frontier, depth: number): boolean {
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

  protected direct(plan: RelationPlan, users: DirectUsers | undefined, depth: number): boolean {
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
}
