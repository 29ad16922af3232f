/**
 * Whose permissions a call asks about (SPEC.md check_permissions, "Agent delegation"):
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

export function resolveSubjects(ctx: RequestContext, explicit: string | undefined, modelHasAgentType: boolean): Subjects {
  const principal = ctx.requirePrincipal();
  const asked = explicit ? normalizeUser(explicit) : undefined;
  if (principal.kind === 'admin') {
    const user = asked ?? principal.subject;
    if (!user || !user.includes(':')) throw new ServiceError('invalid_argument', 'user is required for an admin caller');
    return { user };
  }
  if (asked && asked !== principal.subject) throw new ServiceError('permission_denied', 'explicit user not permitted for this caller');
  if (principal.kind === 'agent') {
    const agent = `agent:${principal.clientId ?? ''}`;
    if (!modelHasAgentType) {
      return ctx.kernel.config.bool('fga-allow-unconstrained-agents') ? { user: principal.subject } : { user: principal.subject, denyAll: true };
    }
    return { user: principal.subject, agent };
  }
  return { user: principal.subject };
}
