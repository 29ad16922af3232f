/** Rules every store applies the same way: batch checks, read filters, pages. */
import { ServiceError } from '../../../core/errors.js';
import { tupleKey } from '../engine/tuple-format.js';
import type { Tuple } from '../engine/types.js';
import type { ReadFilter, StoredModel, TuplePage } from './types.js';

/** OpenFGA Write: no duplicates in a batch, no write of an existing tuple, no delete of a missing one. */
export function checkWriteBatch(
  writes: readonly Tuple[],
  deletes: readonly Tuple[],
  exists: (t: Tuple) => boolean,
): void {
  const seen = new Set<string>();
  for (const t of [...writes, ...deletes]) {
    const k = tupleKey(t);
    if (seen.has(k))
      throw new ServiceError(
        'invalid_argument',
        `duplicate tuple in one request: (${t.user}, ${t.relation}, ${t.object})`,
      );
    seen.add(k);
  }
  for (const t of writes) {
    if (exists(t))
      throw new ServiceError(
        'invalid_argument',
        `cannot write a tuple which already exists: (${t.user}, ${t.relation}, ${t.object})`,
      );
  }
  for (const t of deletes) {
    if (!exists(t))
      throw new ServiceError(
        'invalid_argument',
        `cannot delete a tuple which does not exist: (${t.user}, ${t.relation}, ${t.object})`,
      );
  }
}

export function matchesFilter(t: Tuple, f: ReadFilter): boolean {
  if (f.user && t.user !== f.user) return false;
  if (f.relation && t.relation !== f.relation) return false;
  if (f.object) {
    if (f.object.endsWith(':')) return t.object.startsWith(f.object);
    if (t.object !== f.object) return false;
  }
  return true;
}

export function pageOf(tuples: Tuple[], continuationToken: string): TuplePage {
  return { tuples, continuationToken };
}

/**
 * The model the writer validated against is no longer the one in force when the write holds the
 * log's lock (another node installed one, or reset): the service refreshes and validates again.
 */
export class ModelChangedError extends Error {
  constructor() {
    super('the authorization model changed while writing');
    this.name = 'ModelChangedError';
  }
}

/** Throws ModelChangedError unless `expected` (when given) is the id of `current`. */
export function checkModelInForce(expected: string | undefined, current: StoredModel | null): void {
  if (expected !== undefined && current?.id !== expected) throw new ModelChangedError();
}

/** Reset (`/v1/admin/fga/reset`) is refused while any tuple exists. */
export const stillHasTuples = (): ServiceError =>
  new ServiceError('failed_precondition', 'the FGA store still has tuples: delete them before reset');
