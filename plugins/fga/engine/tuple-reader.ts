/**
 * What the evaluator reads. Every store serves these lookups from its per-node index
 * (store/tuple-index.ts), so one evaluator runs on all stores; the lookups are synchronous
 * because the index is in memory, which is what keeps a check in the microseconds.
 */
export interface TupleReader {
  /** Plain and wildcard users of tuples on `object#relation`. */
  directUsers(objectRelation: string): ReadonlySet<string> | undefined;
  /** Userset users (`type:id#rel`) of tuples on `object#relation`. */
  usersetUsers(objectRelation: string): ReadonlySet<string> | undefined;
  /** Ids of objects of `type` that have a tuple `(relation, user)`. */
  objectIds(type: string, relation: string, user: string): ReadonlySet<string> | undefined;
}

export const EMPTY_READER: TupleReader = {
  directUsers: () => undefined,
  usersetUsers: () => undefined,
  objectIds: () => undefined,
};
