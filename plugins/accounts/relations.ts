/**
 * `roles` and `required_relations` checks of `session`, `validate_jwt_token` and
 * `validate_session`. Relations are answered by the FGA plugin's `fga` service when the build has
 * it; without it they fail closed (a relation nobody can check is not granted).
 */
import type { RequestContext } from '../../core/context.js';

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

export async function hasRelations(ctx: RequestContext, subject: string, wanted: readonly RelationQuery[] | undefined): Promise<boolean> {
  if (!wanted || wanted.length === 0) return true;
  if (!ctx.kernel.hasService('fga')) return false;
  // Looked up by name: the FGA plugin is optional and not imported (DESIGN.md §1).
  const fga = ctx.kernel.service('fga' as never) as unknown as FgaRelationChecker;
  try {
    return await fga.checkRelations(subject, wanted);
  } catch {
    return false;
  }
}
