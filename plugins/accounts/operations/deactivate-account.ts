/** `deactivate_account`: revokes the caller's access and ends all its sessions. */
import { defineOperation } from '../../../core/operations.js';
import { MessageResponse } from '../../../core/schema.js';
import { deps } from '../service.js';
import { currentSession } from './current-session.js';

export const deactivateAccountOperation = defineOperation({
  name: 'deactivate_account',
  kind: 'mutation',
  access: 'session',
  description: "Deactivates the caller's account and ends all its sessions.",
  output: MessageResponse,
  audit: { action: 'user.deactivate', resourceType: 'user', resourceId: ({ ctx }) => ctx.principal?.userId },
  handler: async (ctx) => {
    const { user } = await currentSession(ctx, true);
    const { users, sessions } = deps(ctx);
    // The event's outbox rows are stored by the commit that revokes access (transactional outbox).
    await users.setAccess(user.id, Math.floor(Date.now() / 1000), {
      within: (unit, updated) =>
        ctx.kernel.events.emitWithin(unit, 'user.deactivated', { user: users.toUserDto(updated) }),
    });
    await sessions.revokeAll(user.id);
    sessions.clearCookies(ctx);
    return { message: 'user account deactivated successfully' };
  },
});
