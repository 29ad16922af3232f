/**
 * List users: who has `relation` on `object`, restricted to one user type (`user`, or a
 * userset type such as `group#member`). A forward walk collects candidates (plain users and
 * `type:*` of the filter type, usersets of the filter shape), following usersets, computed
 * relations and tuple-to-userset parents; each is then confirmed with check. A userset of the
 * filter's shape that the walk reaches is a candidate too, the object's own included: it
 * defines itself (OpenFGA's list users answers `document:1#viewer` for `document:1`, `viewer`
 * and the filter `document#viewer`), as check holds it true.
 */
import { Resolver } from './resolver.js';

export function listUsers(
  resolver: Resolver,
  object: string,
  relation: string,
  filterType: string,
  filterRelation?: string,
): string[] {
  const { model, reader } = resolver;
  const visited = new Set<string>();
  const candidates = new Set<string>();
  const stack: [string, string][] = [[object, relation]];
  while (stack.length > 0) {
    const [obj, rel] = stack.pop()!;
    const key = `${obj}#${rel}`;
    if (visited.has(key)) continue;
    visited.add(key);
    const type = obj.slice(0, obj.indexOf(':'));
    const def = model.relation(type, rel);
    if (!def) continue;
    if (filterRelation !== undefined && type === filterType && rel === filterRelation) candidates.add(key);
    for (const u of reader.directUsers(key) ?? []) {
      if (filterRelation === undefined && u.slice(0, u.indexOf(':')) === filterType) candidates.add(u);
    }
    for (const u of reader.usersetUsers(key) ?? []) {
      const h = u.lastIndexOf('#');
      const set = u.slice(0, h);
      if (
        filterRelation !== undefined &&
        u.slice(0, u.indexOf(':')) === filterType &&
        u.slice(h + 1) === filterRelation
      )
        candidates.add(u);
      stack.push([set, u.slice(h + 1)]);
    }
    const walk = (rw: typeof def.rewrite): void => {
      switch (rw.kind) {
        case 'computed':
          stack.push([obj, rw.relation]);
          return;
        case 'ttu':
          for (const p of reader.directUsers(`${obj}#${rw.tupleset}`) ?? []) {
            if (model.relation(p.slice(0, p.indexOf(':')), rw.computed)) stack.push([p, rw.computed]);
          }
          return;
        case 'union':
        case 'intersection':
          rw.children.forEach(walk);
          return;
        case 'exclusion':
          walk(rw.base);
          return;
        default:
          return;
      }
    };
    walk(def.rewrite);
  }
  return [...candidates].filter((u) => resolver.check(object, relation, u)).sort();
}
