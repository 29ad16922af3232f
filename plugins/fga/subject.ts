/**
 * Whose permissions a call asks about ("Agent delegation"):
 * the caller's own subject; an explicit `user` (`type:id`, or a bare id meaning `user:<id>`)
 * only for super-admins or when it is the caller's own subject; for a delegated agent, both the
 * user and the agent (`agent:<client_id>`), whose answers are intersected.
 */
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';

export interface Subjects {
  user: string;
  /** Set for delegated callers: the agent half of the intersection. */
  agent?: string;
  /** Delegated caller and the model has no type `agent` (and no migration switch): deny all. */
  denyAll?: boolean;
}

export function normalizeUser(user: string): string {
  return user.includes(':') ? user : `user:${user}`;
}

/** What subject resolution needs of the model in force. */
export interface ModelTypes {
  hasType(type: string): boolean;
}

export function resolveSubjects(ctx: RequestContext, explicit: string | undefined, model: ModelTypes): Subjects {
  const principal = ctx.requirePrincipal();
  const asked = explicit ? normalizeUser(explicit) : undefined;
  if (principal.kind === 'admin') {
    // A super-admin's own subject (`admin:super`) is asked about only when the model has its
    // type; otherwise the call names no one, and saying so beats "type 'admin' is not defined".
    const own =
      principal.subject &&
      principal.subject.includes(':') &&
      model.hasType(principal.subject.slice(0, principal.subject.indexOf(':')))
        ? principal.subject
        : undefined;
    const user = asked ?? own;
    if (!user) throw new ServiceError('invalid_argument', 'user is required for an admin caller');
    return { user };
  }
  const modelHasAgentType = model.hasType('agent');
  if (asked && asked !== principal.subject)
    throw new ServiceError('permission_denied', 'explicit user not permitted for this caller');
  if (principal.kind === 'agent') {
    const agent = `agent:${principal.clientId ?? ''}`;
    if (!modelHasAgentType) {
      return ctx.kernel.config.bool('fga-allow-unconstrained-agents')
        ? { user: principal.subject }
        : { user: principal.subject, denyAll: true };
    }
    return { user: principal.subject, agent };
  }
  return { user: principal.subject };
}
