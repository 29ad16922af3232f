/**
 * Bounds on what one GraphQL document may ask (bad input is a 4xx, never a stall).
 *
 * Without them, one anonymous request could alias an expensive field thousands of times: 5000
 * aliases of `__schema` would block the event loop for 12 s and answer 74 MB, and 200 aliases of
 * `signup` would make 200 accounts while the per-IP limit counted one request. Every
 * transport runs one operation per call; GraphQL stays close to that:
 * - at most MAX_ROOT_FIELDS fields at the root of a query, and one at the root of a mutation (a
 *   state change per request, so the per-IP limit counts state changes);
 * - at most MAX_FIELDS field selections in an operation, a fragment counted each time it is spread;
 * - at most MAX_DEPTH nested selections;
 * - introspection (`__schema`, `__type`) at most MAX_INTROSPECTION times per operation: each one
 *   walks the whole schema. `__typename` is free.
 * The largest operations of the JavaScript SDK and a tool's full introspection query stay far
 * below these (tested).
 */
import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

export const MAX_ROOT_FIELDS = 10;
export const MAX_FIELDS = 1000;
export const MAX_DEPTH = 15;
export const MAX_INTROSPECTION = 2;

interface Cost {
  fields: number;
  depth: number;
  introspection: number;
}

const NONE: Cost = { fields: 0, depth: 0, introspection: 0 };

export function queryLimitsRule(context: ValidationContext): ASTVisitor {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of context.getDocument().definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  // A fragment's cost once, however often it is spread; a cycle (reported by graphql's own
  // NoFragmentCycles rule) counts as nothing here instead of recursing forever.
  const known = new Map<string, Cost>();
  const open = new Set<string>();

  const fragmentCost = (name: string): Cost => {
    const cached = known.get(name);
    if (cached) return cached;
    const def = fragments.get(name);
    if (!def || open.has(name)) return NONE;
    open.add(name);
    const cost = selectionCost(def.selectionSet);
    open.delete(name);
    known.set(name, cost);
    return cost;
  };

  /** Fields, depth and introspection fields below a selection set (its own fields included). */
  const selectionCost = (set: SelectionSetNode): Cost => {
    let fields = 0;
    let depth = 0;
    let introspection = 0;
    const add = (c: Cost, extraDepth: number) => {
      fields += c.fields;
      introspection += c.introspection;
      depth = Math.max(depth, c.depth + extraDepth);
    };
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value === '__typename') continue;
        fields += 1;
        if (s.name.value === '__schema' || s.name.value === '__type') introspection += 1;
        add(s.selectionSet ? selectionCost(s.selectionSet) : NONE, 1);
        depth = Math.max(depth, 1);
      } else if (s.kind === Kind.INLINE_FRAGMENT) add(selectionCost(s.selectionSet), 0);
      else add(fragmentCost(s.name.value), 0);
      // Past the bound already: no need to count the rest (a huge document stops early).
      if (fields > MAX_FIELDS) break;
    }
    return { fields, depth, introspection };
  };

  /** The root fields of an operation, through fragments and inline fragments at the root. */
  const rootFields = (set: SelectionSetNode, seen = new Set<string>()): number => {
    let n = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) n += s.name.value === '__typename' ? 0 : 1;
      else if (s.kind === Kind.INLINE_FRAGMENT) n += rootFields(s.selectionSet, seen);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const def = fragments.get(s.name.value);
        if (def) n += rootFields(def.selectionSet, seen);
      }
    }
    return n;
  };

  return {
    OperationDefinition(node) {
      const refuse = (why: string) =>
        context.reportError(new GraphQLError(`query too complex: ${why}`, { nodes: [node] }));
      const roots = rootFields(node.selectionSet);
      const maxRoots = node.operation === 'mutation' ? 1 : MAX_ROOT_FIELDS;
      if (roots > maxRoots) return refuse(`${roots} fields at the root of a ${node.operation} (at most ${maxRoots})`);
      const cost = selectionCost(node.selectionSet);
      if (cost.fields > MAX_FIELDS) return refuse(`more than ${MAX_FIELDS} fields`);
      if (cost.depth > MAX_DEPTH) return refuse(`${cost.depth} levels of nesting (at most ${MAX_DEPTH})`);
      if (cost.introspection > MAX_INTROSPECTION)
        return refuse(`${cost.introspection} introspection fields (at most ${MAX_INTROSPECTION})`);
      return undefined;
    },
  };
}
