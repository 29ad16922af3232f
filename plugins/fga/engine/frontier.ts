/**
 * Frontiers: what a relation like `viewer: [user, group#member] or viewer from parent` grants on
 * an object through the object itself and all its parents, flattened and kept per object across
 * requests. A check that reaches a folder through `viewer from parent` then asks the folder's
 * frontier (the plain users and the usersets of every level above it) instead of walking the
 * parent chain level by level: on the bench data set a check walks ~7 folder levels at 1M
 * tuples, and the walk, not the user's own memberships, was ~75% of an uncached check.
 *
 * Only relations marked `frontier` (compiled-model.ts `markFrontiers`) have one: unions of direct
 * users and tuple-to-userset steps over such relations, admitting usersets of closed relations
 * only. For those, the least fixed point the resolver computes is plain reachability, so the
 * flattened sets give the same answer as the walk. The resolver uses a frontier only where the
 * walk could neither fail nor meet a cycle, so answers and errors stay exactly the same:
 *
 * - a cycle in the parents (a folder its own ancestor) gives no frontier (null), and the walk,
 *   with its cycle rule, runs instead;
 * - `deepest` is how many hops below the object the walk could go, userset trees below the
 *   admitted usersets included (userset-heights.ts); the resolver uses the frontier only where
 *   depth + deepest stays within MAX_DEPTH, so no branch of the walk could have hit the limit;
 * - usersets past the depth limit or in a userset cycle (height Infinity), more than
 *   MAX_ENTRIES users or usersets, or more than MAX_NODES objects visited to build one: no
 *   frontier either (bounded memory and build time; the walk answers).
 *
 * Kept on the object's index entry, per relation plan, until a tuple a frontier can read changes
 * (`TupleIndex.frontierEpoch`: a tuple of a relation in `CompiledModel.frontierReads`, the direct
 * users and tuplesets of the relations frontiers are built for, or any tuple whose user is a
 * userset, for the heights) or the model does. A plain user joining a group or a document's own
 * tuples leave them: memberships are read from the user's side at each check. Built lazily, by
 * the first check that needs it.
 */
import type { RelationPlan } from './check-plan.js';
import { THIS } from './check-plan.js';
import type { CompiledModel } from './compiled-model.js';
import type { UsersetUser } from './direct-users.js';
import type { ObjectRef, ObjectTuples, TupleIndex } from './tuple-index.js';
import { shapeOf } from './tuple-format.js';
import type { UsersetHeights } from './userset-heights.js';

/** Users plus usersets one frontier may hold; more, and the walk answers instead. */
export const MAX_ENTRIES = 256;
/** Objects one build may visit (parents of parents, shared ones once); more, and the walk answers. */
export const MAX_NODES = 1024;

export interface FrontierSet {
  /** The userset as the index's parsed view holds it (its object's entry is remembered there). */
  view: UsersetUser;
  /** The closed relation it names. */
  target: RelationPlan;
}

/** The frontiers kept on one object's index entry, valid while the index's `frontierEpoch` for `model` is `epoch`. */
export interface KeptFrontiers {
  epoch: number;
  model: CompiledModel;
  byPlan: Map<RelationPlan, Frontier | null>;
}

export interface Frontier {
  /** Plain users and `type:*` some level admits (each kept only where that level's type restriction allows it). */
  readonly plain: ReadonlySet<string>;
  /** Usersets some level admits, once each. */
  readonly sets: readonly FrontierSet[];
  /** Hops below this object the walk could reach, userset trees included. */
  readonly deepest: number;
}

const EMPTY: Frontier = Object.freeze({ plain: new Set<string>(), sets: Object.freeze([]), deepest: 0 });
/** Marks an entry being built: met again, the parents have a cycle. */
const BUILDING: Frontier = Object.freeze({ plain: new Set<string>(), sets: Object.freeze([]), deepest: -1 });

class Builder {
  private nodes = 0;

  constructor(
    private readonly index: TupleIndex,
    private readonly model: CompiledModel,
    private readonly heights: UsersetHeights | undefined,
    private readonly limit: number,
  ) {}

  /** The frontier of `plan` on the object `ref` names; null where the walk must answer. */
  of(ref: ObjectRef, plan: RelationPlan): Frontier | null {
    const tuples = this.index.tuplesAt(ref);
    if (tuples === undefined) return EMPTY;
    const epoch = this.index.frontierEpoch(this.model);
    let kept = tuples.frontiers;
    if (kept === undefined || kept.epoch !== epoch || kept.model !== this.model)
      tuples.frontiers = kept = { epoch, model: this.model, byPlan: new Map() };
    const known = kept.byPlan.get(plan);
    if (known === BUILDING) return null;
    if (known !== undefined) return known;
    if (++this.nodes > MAX_NODES) return null;
    kept.byPlan.set(plan, BUILDING);
    const built = this.build(tuples, plan);
    kept.byPlan.set(plan, built);
    return built;
  }

  private build(tuples: ObjectTuples, plan: RelationPlan): Frontier | null {
    const plain = new Set<string>();
    const sets = new Map<string, FrontierSet>();
    let deepest = 0;
    for (const step of plan.frontierSteps!) {
      if (step.kind === THIS) {
        const users = tuples.relations.get(plan.name);
        if (users === undefined) continue;
        // Past the cap the walk answers: stop counting at once (a folder may have 100k viewers).
        if ((users.plain?.size ?? 0) + (users.sets?.size ?? 0) > MAX_ENTRIES) return null;
        for (const u of users.plain ?? []) if (plan.allowed.has(shapeOf(u))) plain.add(u);
        for (const view of users.usersets()) {
          const target = plan.usersets.get(view.shape);
          if (target === undefined || sets.has(view.user)) continue;
          const below = this.heightBelow(view);
          if (below === Infinity) return null;
          deepest = Math.max(deepest, 1 + below);
          sets.set(view.user, { view, target });
        }
        continue;
      }
      const parents = tuples.relations.get(step.tupleset);
      if (parents === undefined) continue;
      for (const p of parents.objects()) {
        const computed = step.parents!.get(p.type);
        if (computed === undefined) continue;
        const above = this.of(p, computed);
        if (above === null) return null;
        for (const u of above.plain) plain.add(u);
        for (const s of above.sets) if (!sets.has(s.view.user)) sets.set(s.view.user, s);
        deepest = Math.max(deepest, 1 + above.deepest);
        if (plain.size + sets.size > MAX_ENTRIES) return null;
      }
    }
    if (deepest > this.limit || plain.size + sets.size > MAX_ENTRIES) return null;
    if (plain.size === 0 && sets.size === 0 && deepest === 0) return EMPTY;
    return { plain, sets: [...sets.values()], deepest };
  }

  /** How deep the userset tree below `view` goes (0 without tuples; Infinity past the limit or in a cycle). */
  private heightBelow(view: UsersetUser): number {
    const users = this.index.tuplesAt(view)?.relations.get(view.relation);
    if (users === undefined || users.sets === undefined) return 0;
    return this.heights === undefined ? Infinity : this.heights.at(users, view.object, view.relation).height;
  }
}

/**
 * The frontier of `plan` (marked `frontier`) on the object `ref` names, built and kept if need
 * be; null where the resolver must walk instead (see the header). `heights` are the index's
 * userset heights for `model` (undefined when the model has no closed relation). A kept one is
 * found without allocating anything.
 */
export function frontierOf(
  index: TupleIndex,
  model: CompiledModel,
  heights: UsersetHeights | undefined,
  ref: ObjectRef,
  plan: RelationPlan,
  limit: number,
): Frontier | null {
  const tuples = index.tuplesAt(ref);
  if (tuples === undefined) return EMPTY;
  const kept = tuples.frontiers;
  if (kept !== undefined && kept.model === model && kept.epoch === index.frontierEpoch(model)) {
    const known = kept.byPlan.get(plan);
    if (known !== undefined && known !== BUILDING) return known;
  }
  return new Builder(index, model, heights, limit).of(ref, plan);
}
