/**
 * A model prepared for evaluation: relation lookups, the allowed tuple shapes per relation
 * (for validating writes and ignoring stored tuples that no longer fit), and the reverse
 * dependency edges list-objects walks. Built once per model version.
 */
import { ServiceError } from '../../../core/errors.js';
import { linkPlan, RelationPlan, THIS, TTU, UNION, type Step } from './check-plan.js';
import { compileModel } from './model-validator.js';
import { parseObject, parseUser, shapeOf, userShape, isRelationName } from './tuple-format.js';
import { isStratified } from './stratified.js';
import {
  directTypeKey,
  EMPTY_MODEL,
  type AuthorizationModel,
  type RelationDef,
  type Rewrite,
  type Tuple,
} from './types.js';

/** `(type, relation)` pairs as `type#relation` keys. */
export type RelKey = string;

export interface TtuEdge {
  type: string;
  relation: string;
  tupleset: string;
}

/** The closed direct relations of a model, with what `reachVia` is built from. */
interface ClosedDirect {
  relations: Set<RelKey>;
  /** For a user shape (`user`, `user:*`, `group#member`): the closed direct relations admitting it. */
  byShape: Map<string, { type: string; relation: string }[]>;
  /** For a closed direct relation: the closed direct relations whose usersets can lead into it, itself included. */
  feeders: Map<RelKey, Set<RelKey>>;
}

export class CompiledModel {
  /** `object_type#relation` -> allowed user shapes. */
  private readonly shapes = new Map<RelKey, Set<string>>();
  /** Reverse edges: a fact on `P#r` implies candidates of these relations (list objects). */
  readonly computedDependents = new Map<RelKey, { type: string; relation: string }[]>();
  readonly usersetDependents = new Map<RelKey, { type: string; relation: string }[]>();
  readonly ttuDependents = new Map<RelKey, TtuEdge[]>();
  /**
   * Whether the model has "closed direct" relations (findClosedDirect): only then does the
   * resolver keep userset heights to answer them bottom-up.
   */
  readonly hasClosedDirect: boolean;
  /** No relation depends on itself through a `but not` (stratified.ts says what that buys). */
  readonly stratified: boolean;
  /**
   * The `type#relation`s whose tuples a frontier (frontier.ts) can read: the direct users and the
   * tuplesets of the marked relations that are some `x from y`'s parent relation.
   */
  readonly frontierReads: ReadonlySet<string>;
  /** Per type and relation, what check needs of it, looked up once (check-plan.ts). */
  private readonly plans = new Map<string, Map<string, RelationPlan>>();

  constructor(
    readonly id: string,
    readonly dsl: string,
    readonly model: AuthorizationModel,
  ) {
    for (const t of model.types.values()) {
      for (const r of t.relations.values()) {
        this.shapes.set(`${t.name}#${r.name}`, new Set(r.directTypes.map(directTypeKey)));
        for (const leaf of positiveLeaves(r.rewrite)) this.indexLeaf(t.name, r, leaf);
      }
    }
    this.stratified = isStratified(model);
    const closed = this.findClosedDirect();
    this.hasClosedDirect = closed.relations.size > 0;
    this.buildPlans(closed);
    this.frontierReads = markFrontiers([...this.plans.values()].flatMap((byName) => [...byName.values()]));
  }

  private buildPlans(closed: ClosedDirect): void {
    for (const t of this.model.types.values()) {
      const byName = new Map<string, RelationPlan>();
      const blank = [...t.relations.keys()].map(() => 0);
      for (const r of t.relations.values()) {
        const plan = new RelationPlan(t.name, r.name, r, this.shapes.get(`${t.name}#${r.name}`)!);
        plan.slot = byName.size;
        plan.blank = blank;
        byName.set(r.name, plan);
      }
      this.plans.set(t.name, byName);
    }
    const lookup = (type: string, relation: string) => this.plan(type, relation);
    for (const byName of this.plans.values()) for (const p of byName.values()) linkPlan(p, lookup);
    for (const key of closed.relations) {
      const [type, relation] = key.split('#');
      const target = this.plan(type, relation)!;
      target.closed = true;
      const feeders = closed.feeders.get(key)!;
      for (const [shape, rels] of closed.byShape) {
        const via = rels
          .filter((r) => feeders.has(`${r.type}#${r.relation}`))
          .map((r) => this.plan(r.type, r.relation)!);
        if (via.length > 0) target.reachVia.set(shape, via);
      }
    }
  }

  /** What check needs of `type#relation` (check-plan.ts); undefined when the model lacks it. */
  plan(type: string, relation: string): RelationPlan | undefined {
    return this.plans.get(type)?.get(relation);
  }

  /**
   * "Closed direct" relations: defined only by direct tuples (`[...]`), whose userset types are
   * closed direct too (like `member: [user, group#member]`). Holding one is exactly being
   * reachable from the user through fitting tuples, which the resolver can answer by walking up
   * from the user (resolver.ts, `reach`) instead of down a possibly wide userset tree.
   */
  private findClosedDirect(): ClosedDirect {
    const closedDirect = new Set<RelKey>();
    const byShape = new Map<string, { type: string; relation: string }[]>();
    const closedFeeders = new Map<RelKey, Set<RelKey>>();
    for (const t of this.model.types.values()) {
      for (const r of t.relations.values()) if (r.rewrite.kind === 'this') closedDirect.add(`${t.name}#${r.name}`);
    }
    // Drop relations admitting usersets of relations that are not closed, until nothing changes.
    for (let changed = true; changed;) {
      changed = false;
      for (const key of closedDirect) {
        const [type, name] = key.split('#');
        if (
          this.relation(type, name)!.directTypes.some((d) => d.relation && !closedDirect.has(`${d.type}#${d.relation}`))
        ) {
          closedDirect.delete(key);
          changed = true;
        }
      }
    }
    for (const key of closedDirect) {
      const feeders = new Set<RelKey>([key]);
      const stack = [key];
      while (stack.length > 0) {
        const [t, r] = stack.pop()!.split('#');
        for (const d of this.relation(t, r)!.directTypes) {
          const k = d.relation ? `${d.type}#${d.relation}` : '';
          if (k && !feeders.has(k)) {
            feeders.add(k);
            stack.push(k);
          }
        }
      }
      closedFeeders.set(key, feeders);
      const [type, relation] = key.split('#');
      for (const d of this.relation(type, relation)!.directTypes) {
        const shape = directTypeKey(d);
        const list = byShape.get(shape) ?? [];
        list.push({ type, relation });
        byShape.set(shape, list);
      }
    }
    return { relations: closedDirect, byShape, feeders: closedFeeders };
  }

  static empty(): CompiledModel {
    return new CompiledModel('', '', EMPTY_MODEL);
  }

  static fromDsl(id: string, dsl: string): CompiledModel {
    return new CompiledModel(id, dsl, compileModel(dsl));
  }

  get isEmpty(): boolean {
    return this.model.types.size === 0;
  }

  relation(type: string, relation: string): RelationDef | undefined {
    return this.model.types.get(type)?.relations.get(relation);
  }

  hasType(type: string): boolean {
    return this.model.types.has(type);
  }

  /** Whether a stored tuple `(object of type, relation, user)` is admitted by this model. */
  fits(objectType: string, relation: string, user: string): boolean {
    return this.shapes.get(`${objectType}#${relation}`)?.has(shapeOf(user)) ?? false;
  }

  /**
   * Validates a tuple for storing: as validateTuple, and not implicit (OpenFGA refuses to write
   * `document:1#viewer@document:1#viewer`, which every check already holds true; it admits it as
   * a contextual tuple).
   */
  validateStoredTuple(t: Tuple): void {
    this.validateTuple(t);
    if (t.user === `${t.object}#${t.relation}`) {
      throw new ServiceError(
        'invalid_argument',
        `invalid tuple (${t.user}, ${t.relation}, ${t.object}): cannot write a tuple that is implicit`,
      );
    }
  }

  /** Validates a tuple for writing (or as a contextual tuple); throws invalid_argument. */
  validateTuple(t: Tuple): void {
    const where = `tuple (${t.user}, ${t.relation}, ${t.object})`;
    const obj = parseObject(t.object);
    if (!obj) throw new ServiceError('invalid_argument', `invalid ${where}: object must be type:id`);
    const user = parseUser(t.user);
    if (!user)
      throw new ServiceError('invalid_argument', `invalid ${where}: user must be type:id, type:* or type:id#relation`);
    if (!isRelationName(t.relation)) throw new ServiceError('invalid_argument', `invalid ${where}: bad relation name`);
    if (!this.hasType(obj.type))
      throw new ServiceError('invalid_argument', `invalid ${where}: type '${obj.type}' is not in the model`);
    const rel = this.relation(obj.type, t.relation);
    if (!rel)
      throw new ServiceError(
        'invalid_argument',
        `invalid ${where}: relation '${t.relation}' is not defined on type '${obj.type}'`,
      );
    if (rel.directTypes.length === 0) {
      throw new ServiceError(
        'invalid_argument',
        `invalid ${where}: relation '${obj.type}#${t.relation}' cannot be written directly`,
      );
    }
    if (!this.shapes.get(`${obj.type}#${t.relation}`)!.has(userShape(user))) {
      throw new ServiceError(
        'invalid_argument',
        `invalid ${where}: '${userShape(user)}' is not an allowed user type for '${obj.type}#${t.relation}' (allowed: ${rel.directTypes.map(directTypeKey).join(', ')})`,
      );
    }
  }

  private indexLeaf(type: string, r: RelationDef, leaf: Rewrite): void {
    const push = <T>(map: Map<RelKey, T[]>, key: RelKey, v: T) => {
      const list = map.get(key) ?? [];
      list.push(v);
      map.set(key, list);
    };
    if (leaf.kind === 'computed') push(this.computedDependents, `${type}#${leaf.relation}`, { type, relation: r.name });
    else if (leaf.kind === 'this') {
      for (const d of r.directTypes)
        if (d.relation) push(this.usersetDependents, `${d.type}#${d.relation}`, { type, relation: r.name });
    } else if (leaf.kind === 'ttu') {
      const ts = this.relation(type, leaf.tupleset);
      for (const d of ts?.directTypes ?? []) {
        if (d.relation || d.wildcard || !this.relation(d.type, leaf.computed)) continue;
        push(this.ttuDependents, `${d.type}#${leaf.computed}`, { type, relation: r.name, tupleset: leaf.tupleset });
      }
    }
  }
}

/**
 * The leaves that can make a relation true: everything except the subtracted side of an
 * exclusion. Candidates found through them are a superset, verified by check afterwards.
 */
export function positiveLeaves(rw: Rewrite): Rewrite[] {
  switch (rw.kind) {
    case 'union':
    case 'intersection':
      return rw.children.flatMap(positiveLeaves);
    case 'exclusion':
      return positiveLeaves(rw.base);
    default:
      return [rw];
  }
}

/**
 * Marks the plans whose grants through parents can be kept per object (`RelationPlan.frontier`):
 * a rewrite of direct users and `x from y` steps (one union at most), usersets only of closed
 * relations, and every parent's relation marked too. The greatest such set: a relation that
 * reaches itself through parents (`viewer from parent` on a folder) stays marked.
 */
function markFrontiers(plans: readonly RelationPlan[]): Set<string> {
  const leaves = (step: Step): readonly Step[] | null => {
    if (step.kind === THIS || step.kind === TTU) return [step];
    if (step.kind !== UNION) return null;
    return step.children.every((c) => c.kind === THIS || c.kind === TTU) ? step.children : null;
  };
  const marked = new Set(
    plans.filter((p) => leaves(p.rewrite) !== null && [...p.usersets.values()].every((target) => target.closed)),
  );
  for (let changed = true; changed;) {
    changed = false;
    for (const p of marked) {
      const ok = leaves(p.rewrite)!.every(
        (step) => step.kind === THIS || [...step.parents!.values()].every((parent) => marked.has(parent)),
      );
      if (!ok) {
        marked.delete(p);
        changed = true;
      }
    }
  }
  for (const p of marked) p.frontierSteps = leaves(p.rewrite)!;
  // Frontiers are built only for a tuple-to-userset's parent relation, and from there for the
  // parent relations of its own steps: what they read is these relations' direct users and tuplesets.
  // A step anywhere in a rewrite (under a `but not` too) may use one.
  const reads = new Set<string>();
  const visit = (step: Step): void => {
    for (const c of step.children) visit(c);
    if (step.kind !== TTU) return;
    for (const parent of step.parents!.values()) {
      if (!parent.frontier) continue;
      reads.add(parent.key);
      for (const s of parent.frontierSteps!) if (s.kind === TTU) reads.add(`${parent.type}#${s.tupleset}`);
    }
  };
  for (const p of plans) visit(p.rewrite);
  return reads;
}
