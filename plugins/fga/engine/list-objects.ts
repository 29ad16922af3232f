/**
 * List objects: every object of `type` on which `user` has `relation`. Candidates come from a
 * reverse walk of the model from the user's own tuples (direct, wildcard, usersets, computed
 * relations, tuple-to-userset parents), which over-approximates (it ignores the subtracted side
 * of exclusions and the other operands of intersections); each candidate is then confirmed with
 * check on the same resolver, so the answer is exact and shares the request's memory.
 */
import type { CompiledModel } from './compiled-model.js';
import { positiveLeaves } from './compiled-model.js';
import { Resolver } from './resolver.js';
import type { TupleReader } from './tuple-reader.js';

export interface ListResult {
  ids: string[];
  truncated: boolean;
}

/** Relations whose facts can lead to `type#relation` (backwards over positive leaves). */
function relevantRelations(model: CompiledModel, type: string, relation: string): Set<string> {
  const relevant = new Set<string>();
  const stack: [string, string][] = [[type, relation]];
  while (stack.length > 0) {
    const [t, r] = stack.pop()!;
    const key = `${t}#${r}`;
    if (relevant.has(key)) continue;
    const def = model.relation(t, r);
    if (!def) continue;
    relevant.add(key);
    for (const leaf of positiveLeaves(def.rewrite)) {
      if (leaf.kind === 'computed') stack.push([t, leaf.relation]);
      else if (leaf.kind === 'this') {
        for (const d of def.directTypes) if (d.relation) stack.push([d.type, d.relation]);
      } else if (leaf.kind === 'ttu') {
        for (const d of model.relation(t, leaf.tupleset)?.directTypes ?? []) {
          if (!d.relation && !d.wildcard && model.relation(d.type, leaf.computed)) stack.push([d.type, leaf.computed]);
        }
      }
    }
  }
  return relevant;
}

/** Superset of the ids of `type` on which `user` may hold `relation`. */
export function candidateObjects(
  model: CompiledModel,
  reader: TupleReader,
  type: string,
  relation: string,
  user: string,
): Iterable<string> {
  const relevant = relevantRelations(model, type, relation);
  const facts = new Map<string, Set<string>>();
  const queue: [string, string, string][] = [];
  const add = (t: string, r: string, id: string) => {
    const key = `${t}#${r}`;
    if (!relevant.has(key)) return;
    let set = facts.get(key);
    if (!set) facts.set(key, (set = new Set()));
    if (set.has(id)) return;
    set.add(id);
    queue.push([t, r, id]);
  };
  const addAll = (t: string, r: string, ids: ReadonlySet<string> | undefined) => {
    if (ids) for (const id of ids) add(t, r, id);
  };
  const colon = user.indexOf(':');
  const userType = user.slice(0, colon);
  const hash = user.indexOf('#', colon);
  const userRelation = hash >= 0 ? user.slice(hash + 1) : undefined;
  const isWildcard = user.slice(colon + 1) === '*';
  // Seeds: tuples that name the user (or its type's wildcard) directly.
  for (const key of relevant) {
    const [t, r] = key.split('#');
    const def = model.relation(t, r)!;
    if (!positiveLeaves(def.rewrite).some((l) => l.kind === 'this')) continue;
    for (const d of def.directTypes) {
      if (d.type !== userType) continue;
      if (userRelation === undefined && !d.relation && !d.wildcard && !isWildcard)
        addAll(t, r, reader.objectIds(t, r, user));
      if (userRelation === undefined && d.wildcard) addAll(t, r, reader.objectIds(t, r, `${userType}:*`));
      if (userRelation !== undefined && d.relation === userRelation) addAll(t, r, reader.objectIds(t, r, user));
    }
  }
  // A userset user has its own relation on its own object (self-defining).
  if (userRelation !== undefined) add(userType, userRelation, user.slice(colon + 1, hash));
  while (queue.length > 0) {
    const [p, r, id] = queue.pop()!;
    const key = `${p}#${r}`;
    for (const d of model.computedDependents.get(key) ?? []) add(d.type, d.relation, id);
    for (const d of model.usersetDependents.get(key) ?? [])
      addAll(d.type, d.relation, reader.objectIds(d.type, d.relation, `${p}:${id}#${r}`));
    for (const d of model.ttuDependents.get(key) ?? [])
      addAll(d.type, d.relation, reader.objectIds(d.type, d.tupleset, `${p}:${id}`));
  }
  return facts.get(`${type}#${relation}`) ?? [];
}

export function listObjects(
  resolver: Resolver,
  type: string,
  relation: string,
  user: string,
  limit: number,
): ListResult {
  const ids: string[] = [];
  for (const id of candidateObjects(resolver.model, resolver.reader, type, relation, user)) {
    if (!resolver.check(`${type}:${id}`, relation, user)) continue;
    if (ids.length === limit) return { ids, truncated: true };
    ids.push(id);
  }
  return { ids, truncated: false };
}
