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
import { type RelationPlan } from './check-plan.js';
import { DirectUsers } from './direct-users.js';
import type { Reached } from './kept-reach.js';
import { type ObjectTuples } from './tuple-index.js';
import { shapeOf, typeOf } from './tuple-format.js';
import { CLOCK_EVERY, DepthExceededError, EVALUATION_TIME_LIMIT_MS, HOP_LIMIT, MAX_DEPTH } from './resolver-limits.js';
import {
  answered,
  answerOf,
  below,
  belowOf,
  EMPTY,
  FAILED,
  OPEN,
  UNKNOWN,
  withHeight,
  withHeights,
  type TaintedAnswer,
} from './resolver-memory.js';
import { walkReach } from './reach-walk.js';
import { RelationSteps } from './resolver-steps.js';

export {
  deadlineFromNow,
  DepthExceededError,
  EVALUATION_TIME_LIMIT_MS,
  MAX_COMPUTED_NESTING,
  MAX_DEPTH,
  REACH_CAP,
  SMALL_TREE,
  type ResolverOptions,
} from './resolver-limits.js';

export class Resolver extends RelationSteps {
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
   * `plan` is the model's plan of `relation` on the object's type (undefined: the type lacks it);
   * `tuples` the object's entry in the index (undefined without one, or when reading another reader).
   */
  protected resolve(
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
    // evaluated afresh, where another branch may decide within the limit (a batch must not give
    // the depth error where each check alone is true).
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

  /**
   * Every node of the closed direct relations leading into `target` that the checked user holds,
   * walking up from its own tuples (and its type's wildcard); null past the cap.
   */
  protected reach(target: RelationPlan): Reached | null {
    // On the node's own index the walks are kept between checks (kept-reach.ts): the index
    // forgets a user's walks when a tuple they read changes. Only here, where a walk is needed.
    const byTarget = (this.reached ??= this.index
      ? this.index.reachOf(this.model, this.reachCap, this.user)
      : new Map());
    const known = byTarget.get(target);
    if (known !== undefined) return known;
    const kept = walkReach(
      this.reader,
      target,
      this.user,
      this.userShape,
      this.userIsSet,
      this.userWildcard,
      this.reachCap,
    );
    byTarget.set(target, kept);
    return kept;
  }
}
