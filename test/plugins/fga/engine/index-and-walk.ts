/**
 * The node's own index against a plain reader over the same tuples: the index lets the resolver
 * take its shortcuts (bottom-up for closed relations, frontiers), the plain reader walks every
 * level top-down. Tests of those shortcuts compare the two: answers and depth errors alike.
 */
import {
  DepthExceededError,
  Resolver,
  TupleIndex,
  type CompiledModel,
  type TupleReader,
} from '../../../../plugins/fga/engine/index.js';

export type Answer = boolean | 'depth';

export function indexAndWalk(model: CompiledModel, tuples: readonly [string, string, string][]) {
  const index = new TupleIndex();
  for (const [user, relation, object] of tuples) index.add({ user, relation, object });
  const plain: TupleReader = {
    directUsers: (k) => index.directUsers(k),
    usersetUsers: (k) => index.usersetUsers(k),
    objectIds: (ty, r, u) => index.objectIds(ty, r, u),
  };
  const answer = (reader: TupleReader, object: string, relation: string, user: string): Answer => {
    try {
      return new Resolver(model, reader).check(object, relation, user);
    } catch (err) {
      if (err instanceof DepthExceededError) return 'depth';
      throw err;
    }
  };
  /** [through the index, walking every level]. */
  const both = (object: string, relation: string, user: string): [Answer, Answer] => [
    answer(index, object, relation, user),
    answer(plain, object, relation, user),
  ];
  return { index, both };
}
