/** `logout`: ends the current session and the sessions its cleared cookies name. */
import { defineOperation } from '../../../core/operations.js';
import { MessageResponse } from '../../../core/schema.js';
import { deps } from '../service.js';

export const logoutOperation = defineOperation({
  name: 'logout',
  kind: 'mutation',
  access: 'session',
  description: 'Ends the current session.',
  output: MessageResponse,
  audit: { action: 'user.logout', resourceType: 'session', resourceId: ({ ctx }) => ctx.principal?.sessionId },
  handler: async (ctx) => {
    const p = ctx.requirePrincipal();
    const { sessions } = deps(ctx);
    if (p.userId && p.sessionId) await sessions.revoke(p.userId, p.sessionId);
    // The cookies cleared below may name other sessions than the one the caller was
    // recognised by (the authenticator prefers a bearer token, and the host cookie over the
    // domain one): those end too, or a copy of a cleared cookie would keep working after the
    // logout. Cookies the transport does not honour for this caller are neither
    // read here nor cleared.
    for (const named of await sessions.cookieSessions(ctx)) {
      if (named.id !== p.sessionId) await sessions.revoke(named.userId, named.id);
    }
    sessions.clearCookies(ctx);
    return { message: 'Logged out successfully' };
  },
});
