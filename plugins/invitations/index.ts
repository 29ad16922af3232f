/**
 * The invitations plugin: `_invite_members` (schema.graphql `InviteMemberRequest` →
 * `InviteMembersResponse`) creates an account for each new address and mails it an
 * `invite_member` link to the reset form, through which the invited user sets a password
 * (password-reset plugin, 7-day link) and then signs in. Addresses that already have an account
 * are left alone and not mailed. Every address is checked before anything is written.
 */
import { failedPrecondition, invalidArgument } from '../../core/errors.js';
import { defineOperation } from '../../core/operations.js';
import { definePlugin } from '../../core/plugin.js';
import { InputObject, OptStr, OutputObject, Type } from '../../core/schema.js';
import { checkedRedirect } from '../email/index.js';
import { UserSchema, type UserRecord } from '../users/index.js';

export const INVITATION_SENT = 'Invitation sent successfully';
const MAX_INVITES = 50;

export const InviteMemberRequest = InputObject('InviteMemberRequest', {
  emails: Type.Array(Type.String({ maxLength: 320 }), { maxItems: MAX_INVITES }),
  redirect_uri: OptStr({ max: 2048 }),
});

export const InviteMembersResponse = OutputObject('InviteMembersResponse', {
  message: Type.String(),
  Users: Type.Array(UserSchema),
});

export const invitationsPlugin = definePlugin({
  name: 'invitations',
  description: 'Admin invitations: accounts created and mailed a link to set their password.',
  dependsOn: ['admin', 'users', 'email', 'password-reset'],
  operations: [
    defineOperation({
      name: '_invite_members',
      kind: 'mutation',
      access: 'admin',
      description: 'Creates accounts for new addresses and mails each an invitation link to set a password.',
      input: InviteMemberRequest,
      output: InviteMembersResponse,
      audit: { action: 'user.invite', resourceType: 'user', metadata: ({ input }) => ({ count: input.emails.length }) },
      handler: async (ctx, input) => {
        const users = ctx.kernel.service('users');
        const email = ctx.kernel.service('email');
        if (input.emails.length === 0) throw invalidArgument('invalid emails: at least one address is required');
        const addresses = [...new Set(input.emails.map((e) => users.normalizeEmail(e)))];
        const redirectUri = await checkedRedirect(ctx, input.redirect_uri);
        if (!email.configured) throw failedPrecondition('email sending is not configured on this instance');
        const invited: UserRecord[] = [];
        for (const address of addresses) {
          if (await users.findByEmail(address)) continue;
          // The invited user, its mail and its event are stored by one commit (transactional
          // outbox): an invited user always has its invitation, since inviting the address again
          // skips an existing user.
          const user = await users.create(
            { email: address, signup_method: 'basic_auth', roles: [...users.roles.defaults] },
            {
              within: async (unit, created) => {
                const link = await ctx.kernel.service('password-reset').issueLink(ctx, created, 'invite', redirectUri);
                await email.send({ event: 'invite_member', to: address, data: { link } }, unit);
                await ctx.kernel.events.emitWithin(unit, 'user.created', {
                  user: users.toUserDto(created),
                  auth_recipe: 'invite',
                });
              },
            },
          );
          invited.push(user);
        }
        return { message: INVITATION_SENT, Users: invited.map((u) => users.toUserDto(u)) };
      },
    }),
  ],
});
