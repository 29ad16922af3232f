/**
 * `roles` and `required_relations` checks of `session`, `validate_jwt_token` and
 * `validate_session`. Relations are answered by the FGA plugin's `fga` service when the build has
 * it; without it they fail closed (a relation nobody can check is not granted).
 *
 * A relation the model cannot answer (an object that is not `type:id`, a type or relation the
 * model does not define) is the caller's mistake and answers `invalid_argument`, as the same
 * question does in check_permissions: answering "not valid" would make a typo look like a
 * denial. So does a check past the engine's limits (hops, time). Any other failure of
 * the engine fails closed.
 */
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';

export interface RelationQuery {
  relation: string;
  object: string;
}

interface FgaRelationChecker {
  checkRelations(subject: string, relations: readonly RelationQuery[]): Promise<boolean>;
}

export function hasRoles(held: readonly string[], wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((r) => held.includes(r));
}

/**
 * True at once (no promise) when no relation is asked for, as on most validate_jwt_token calls;
 * otherwise the FGA plugin's answer.
 */
export function hasRelations(
  ctx: RequestContext,
  subject: string,
  wanted: readonly RelationQuery[] | undefined,
): true | Promise<boolean> {
  if (!wanted || wanted.length === 0) return true;
  return checkRelations(ctx, subject, wanted);
}

async function checkRelations(
  ctx: RequestContext,
  subject: string,
  wanted: readonly RelationQuery[],
): Promise<boolean> {
  if (!ctx.kernel.hasService('fga')) return false;
  // Looked up by name: the FGA plugin is optional and not imported.
  const fga = ctx.kernel.service('fga' as never) as unknown as FgaRelationChecker;
  try {
    return await fga.checkRelations(subject, wanted);
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'invalid_argument') throw err;
    return false;
  }
}
