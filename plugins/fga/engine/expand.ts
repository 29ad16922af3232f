/**
 * Expand: the userset tree of `object#relation`, one level deep, in OpenFGA's Expand shape
 * (`{root: {name, leaf|union|intersection|difference}}`): direct users as a leaf, computed
 * relations and tuple-to-userset as references the caller can expand in turn.
 */
import type { CompiledModel } from './compiled-model.js';
import type { TupleReader } from './tuple-reader.js';
import type { Rewrite } from './types.js';

export type ExpandNode =
  | { name: string; leaf: { users: { users: string[] } } }
  | { name: string; leaf: { computed: { userset: string } } }
  | { name: string; leaf: { tupleToUserset: { tupleset: string; computed: { userset: string }[] } } }
  | { name: string; union: { nodes: ExpandNode[] } }
  | { name: string; intersection: { nodes: ExpandNode[] } }
  | { name: string; difference: { base: ExpandNode; subtract: ExpandNode } };

export function expand(
  model: CompiledModel,
  reader: TupleReader,
  object: string,
  relation: string,
): { root: ExpandNode } {
  const type = object.slice(0, object.indexOf(':'));
  const def = model.relation(type, relation)!;
  const name = `${object}#${relation}`;
  const node = (rw: Rewrite): ExpandNode => {
    switch (rw.kind) {
      case 'this': {
        const users = [...(reader.directUsers(name) ?? []), ...(reader.usersetUsers(name) ?? [])].filter((u) =>
          model.fits(type, relation, u),
        );
        return { name, leaf: { users: { users: users.sort() } } };
      }
      case 'computed':
        return { name, leaf: { computed: { userset: `${object}#${rw.relation}` } } };
      case 'ttu': {
        const computed = [...(reader.directUsers(`${object}#${rw.tupleset}`) ?? [])]
          .filter((p) => model.fits(type, rw.tupleset, p) && model.relation(p.slice(0, p.indexOf(':')), rw.computed))
          .sort()
          .map((p) => ({ userset: `${p}#${rw.computed}` }));
        return { name, leaf: { tupleToUserset: { tupleset: `${object}#${rw.tupleset}`, computed } } };
      }
      case 'union':
        return { name, union: { nodes: rw.children.map(node) } };
      case 'intersection':
        return { name, intersection: { nodes: rw.children.map(node) } };
      case 'exclusion':
        return { name, difference: { base: node(rw.base), subtract: node(rw.subtract) } };
    }
  };
  return { root: node(def.rewrite) };
}
