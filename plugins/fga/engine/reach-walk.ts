/**
 * The walk up from a checked user: every node of the closed direct relations leading into a
 * target relation that the user holds, through its own tuples (and its type's wildcard). The
 * resolver answers a closed relation by looking the node up in this set (resolver.ts header).
 */
import type { RelationPlan } from './check-plan.js';
import type { Reached } from './kept-reach.js';
import { NOTHING_REACHED } from './resolver-memory.js';
import type { TupleReader } from './tuple-reader.js';

/** The nodes `user` reaches on the way into `target`; null when there are more than `cap`. */
export function walkReach(
  reader: TupleReader,
  target: RelationPlan,
  user: string,
  userShape: string,
  userIsSet: boolean,
  userWildcard: string,
  cap: number,
): Reached | null {
  const reached: Reached = new Map();
  let count = 0;
  const queue = [user];
  const shapes = [userShape];
  // A plain user also holds what `type:*` holds (the resolver's direct step: wildcard tuples).
  if (!userIsSet && !userShape.endsWith(':*')) {
    queue.push(userWildcard);
    shapes.push(userWildcard);
  }
  for (let i = 0; i < queue.length; i++) {
    const u = queue[i];
    for (const rel of target.reachVia.get(shapes[i]) ?? []) {
      const ids = reader.objectIds(rel.type, rel.name, u);
      if (!ids) continue;
      let objects = reached.get(rel);
      if (!objects) reached.set(rel, (objects = new Set()));
      for (const id of ids) {
        const object = `${rel.type}:${id}`;
        if (objects.has(object)) continue;
        objects.add(object);
        queue.push(`${object}#${rel.name}`);
        shapes.push(rel.key);
        if (++count > cap) return null;
      }
    }
  }
  // Most users of a big store hold no such userset; kept walks share one empty answer.
  return reached.size === 0 ? NOTHING_REACHED : reached;
}
