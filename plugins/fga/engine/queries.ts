/**
 * The engine's public questions with their input rules: check (one or a batch), list objects,
 * list users and expand. Inputs are validated against the model the way OpenFGA validates
 * them (unknown types or relations are `invalid_argument`); contextual tuples are validated
 * like writes and live only in the overlay of the one check they came with.
 */
import { ServiceError } from '../../../core/errors.js';
import type { CompiledModel } from './compiled-model.js';
import { expand, type ExpandNode } from './expand.js';
import { listObjects, type ListResult } from './list-objects.js';
import { listUsers } from './list-users.js';
import { deadlineFromNow, Resolver } from './resolver.js';
import { OverlayReader } from './tuple-index.js';
import type { TupleReader } from './tuple-reader.js';
import { parseObject, parseUser, tupleKey } from './tuple-format.js';
import type { Tuple } from './types.js';

export interface CheckQuery {
  object: string;
  relation: string;
  user: string;
  contextualTuples?: readonly Tuple[];
}

const bad = (message: string) => new ServiceError('invalid_argument', message);

export function requireObjectRelation(model: CompiledModel, object: string, relation: string): void {
  const obj = parseObject(object);
  if (!obj) throw bad(`invalid object '${object}': expected type:id`);
  if (!model.hasType(obj.type)) throw bad(`type '${obj.type}' is not defined in the authorization model`);
  if (!model.relation(obj.type, relation)) throw bad(`relation '${relation}' is not defined on type '${obj.type}'`);
}

export function requireUser(model: CompiledModel, user: string): void {
  const u = parseUser(user);
  if (!u) throw bad(`invalid user '${user}': expected type:id, type:* or type:id#relation`);
  if (!model.hasType(u.type)) throw bad(`type '${u.type}' is not defined in the authorization model`);
  if (u.relation && !model.relation(u.type, u.relation))
    throw bad(`relation '${u.relation}' is not defined on type '${u.type}'`);
}

export function requireType(model: CompiledModel, type: string): void {
  if (!model.hasType(type)) throw bad(`type '${type}' is not defined in the authorization model`);
}

/**
 * Answers checks in order; those without contextual tuples share one resolver (and its memory).
 * Every resolver of the batch stops at the one `deadline` (resolver.ts EVALUATION_TIME_LIMIT_MS).
 */
export function checkMany(
  model: CompiledModel,
  reader: TupleReader,
  queries: readonly CheckQuery[],
  deadline = deadlineFromNow(),
): boolean[] {
  for (const q of queries) {
    requireObjectRelation(model, q.object, q.relation);
    requireUser(model, q.user);
    const contextual = q.contextualTuples;
    if (contextual && contextual.length > 0) {
      // Validated like writes (OpenFGA Check refuses duplicate contextual tuples too).
      const seen = new Set<string>();
      for (const t of contextual) {
        model.validateTuple(t);
        const k = tupleKey(t);
        if (seen.has(k)) throw bad(`duplicate contextual tuple in request: (${t.user}, ${t.relation}, ${t.object})`);
        seen.add(k);
      }
    }
  }
  let shared: Resolver | undefined;
  // One time limit for the whole batch, however many resolvers it takes.
  const options = { deadline };
  return queries.map((q) => {
    if (q.contextualTuples && q.contextualTuples.length > 0) {
      return new Resolver(model, OverlayReader.of(reader, q.contextualTuples), options).check(
        q.object,
        q.relation,
        q.user,
      );
    }
    shared ??= new Resolver(model, reader, options);
    return shared.check(q.object, q.relation, q.user);
  });
}

export function check(model: CompiledModel, reader: TupleReader, q: CheckQuery): boolean {
  return checkMany(model, reader, [q])[0];
}

export function listObjectsOf(
  model: CompiledModel,
  reader: TupleReader,
  type: string,
  relation: string,
  user: string,
  limit = 1000,
  resolver?: Resolver,
): ListResult {
  requireType(model, type);
  if (!model.relation(type, relation)) throw bad(`relation '${relation}' is not defined on type '${type}'`);
  requireUser(model, user);
  return listObjects(resolver ?? new Resolver(model, reader), type, relation, user, limit);
}

export function listUsersOf(
  model: CompiledModel,
  reader: TupleReader,
  object: string,
  relation: string,
  userType: string,
): string[] {
  requireObjectRelation(model, object, relation);
  const h = userType.indexOf('#');
  const type = h >= 0 ? userType.slice(0, h) : userType;
  const rel = h >= 0 ? userType.slice(h + 1) : undefined;
  requireType(model, type);
  if (rel !== undefined && !model.relation(type, rel)) throw bad(`relation '${rel}' is not defined on type '${type}'`);
  return listUsers(new Resolver(model, reader), object, relation, type, rel);
}

export function expandOf(
  model: CompiledModel,
  reader: TupleReader,
  object: string,
  relation: string,
): { root: ExpandNode } {
  requireObjectRelation(model, object, relation);
  return expand(model, reader, object, relation);
}
