/**
 * The org admin caller (org-scoped operations also accept
 * that organization's `service:org_admin` member). A signed-in user (bearer token or session
 * cookie, the `session` authenticators) who holds that role in at least one enabled
 * organization becomes an `org-admin` principal naming those organizations; the kernel tries it
 * after the super-admin's authenticators and keeps the principal on the request context, so each
 * request resolves it once.
 */
import type { Principal, RequestContext } from '../../core/context.js';
import type { Authenticator } from '../../core/plugin.js';
import type { OrganizationsService } from './service.js';

export function orgAdminAuthenticator(service: OrganizationsService): Authenticator {
  return async (ctx: RequestContext, input: unknown): Promise<Principal | null> => {
    const user = await ctx.kernel.authenticate('session', ctx, input);
    if (!user || user.kind !== 'user' || !user.userId) return null;
    const orgAdminOf = await service.adminOrgIds(user.userId);
    if (orgAdminOf.length === 0) return null;
    // The spread keeps what the session authenticator attached (its session, under a symbol).
    return { ...user, kind: 'org-admin', orgAdminOf };
  };
}
