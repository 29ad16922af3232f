/**
 * What check needs of each relation, worked out once per model version (compiled-model.ts)
 * instead of on every sub-question: the rewrite with every relation it names already looked up,
 * the allowed user shapes, the relations an allowed userset names, and for tuple-to-userset the
 * parent types the tupleset admits together with the computed relation on each.
 *
 * The rules are the ones resolver.ts applied per step before (OpenFGA semantics): a userset user
 * counts only when its shape is allowed; a tupleset parent counts only when it is a plain object
 * whose type the tupleset relation admits and defines the computed relation (parents of other
 * types, left from older models, are skipped). Steps are one class, so the resolver's switch
 * reads one object shape.
 */
import type { RelationDef, Rewrite } from './types.js';
import { directTypeKey } from './types.js';

export const THIS = 0;
export const COMPUTED = 1;
export const TTU = 2;
export const UNION = 3;
export const INTERSECTION = 4;
/** children[0] but not children[1]. */
export const EXCLUSION = 5;

export class Step {
  constructor(
    readonly kind: number,
    /** COMPUTED: the relation on the same object (undefined only in a model the validator refused). */
    readonly target: RelationPlan | undefined,
    /** TTU: the tupleset relation's name. */
    readonly tupleset: string,
    /** TTU: parent type -> the computed relation on it, for the plain types the tupleset admits. */
    readonly parents: ReadonlyMap<string, RelationPlan> | undefined,
    readonly children: readonly Step[],
  ) {}
}

export class RelationPlan {
  /** `type#name`. */
  readonly key: string;
  rewrite!: Step;
  /** Allowed userset shapes (`group#member`) -> the relation they name. */
  readonly usersets = new Map<string, RelationPlan>();
  /** A closed direct relation (compiled-model.ts): may be answered bottom-up. */
  closed = false;
  /**
   * For a union of direct users and tuple-to-userset steps whose parents' relations are such
   * unions too, admitting only usersets of closed relations (`viewer: [user, group#member] or
   * viewer from parent`): those steps. What it grants through an object's parents can then be kept
   * per object (frontier.ts). Undefined for every other relation (compiled-model.ts `markFrontiers`).
   */
  frontierSteps: readonly Step[] | undefined;

  /** Whether `frontierSteps` are set. */
  get frontier(): boolean {
    return this.frontierSteps !== undefined;
  }
  /** This relation's place among its type's relations: the resolver keeps one state per place and object. */
  slot = 0;
  /** One 0 per relation of the type: the resolver's fresh states for an object of this type. */
  blank: readonly number[] = [];
  /**
   * Closed relations only: for a user shape, the closed relations admitting it that can lead into
   * this one (the walk up from a user, resolver.ts `reach`).
   */
  readonly reachVia = new Map<string, RelationPlan[]>();

  constructor(
    readonly type: string,
    readonly name: string,
    readonly def: RelationDef,
    /** Allowed user shapes of direct tuples: `user`, `user:*`, `group#member`. */
    readonly allowed: ReadonlySet<string>,
  ) {
    this.key = `${type}#${name}`;
  }
}

type Lookup = (type: string, relation: string) => RelationPlan | undefined;

/** Fills in `plan.rewrite` and `plan.usersets` once every plan of the model exists. */
export function linkPlan(plan: RelationPlan, lookup: Lookup): void {
  for (const d of plan.def.directTypes) {
    const target = d.relation ? lookup(d.type, d.relation) : undefined;
    if (target) plan.usersets.set(directTypeKey(d), target);
  }
  plan.rewrite = stepOf(plan.type, plan.def.rewrite, lookup);
}

function stepOf(type: string, rw: Rewrite, lookup: Lookup): Step {
  switch (rw.kind) {
    case 'this':
      return new Step(THIS, undefined, '', undefined, []);
    case 'computed':
      return new Step(COMPUTED, lookup(type, rw.relation), '', undefined, []);
    case 'ttu': {
      const parents = new Map<string, RelationPlan>();
      for (const d of lookup(type, rw.tupleset)?.def.directTypes ?? []) {
        const computed = d.relation || d.wildcard ? undefined : lookup(d.type, rw.computed);
        if (computed) parents.set(d.type, computed);
      }
      return new Step(TTU, undefined, rw.tupleset, parents, []);
    }
    case 'union':
      return new Step(
        UNION,
        undefined,
        '',
        undefined,
        rw.children.map((c) => stepOf(type, c, lookup)),
      );
    case 'intersection':
      return new Step(
        INTERSECTION,
        undefined,
        '',
        undefined,
        rw.children.map((c) => stepOf(type, c, lookup)),
      );
    case 'exclusion':
      return new Step(EXCLUSION, undefined, '', undefined, [
        stepOf(type, rw.base, lookup),
        stepOf(type, rw.subtract, lookup),
      ]);
  }
}
