/**
 * Admin user management: list with case-insensitive search, read, update,
 * delete by id, revoke and enable access. Revoking ends every session at once, so the user's
 * access tokens fail on their next use (stateful tokens).
 */
import type { RequestContext } from '../../core/context.js';
import { invalidArgument, notFound } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse, pageOf, paginationOf } from '../../core/schema.js';
import { UserSchema } from '../users/index.js';
import type { UserPatch } from '../users/index.js';
import {
  DeleteUserRequest,
  GetUserRequest,
  ListUsersRequest,
  ListVerificationRequestsRequest,
  UpdateAccessRequest,
  UpdateUserRequest,
  Users,
  VerificationRequests,
} from './schemas.js';

const deps = (ctx: RequestContext) => ({
  users: ctx.kernel.service('users'),
  sessions: ctx.kernel.service('sessions'),
});

async function mustFind(ctx: RequestContext, id: string) {
  const user = await deps(ctx).users.findById(id);
  if (!user) throw notFound('user not found');
  return user;
}

export const adminUserOperations: AnyOperation[] = [
  defineOperation({
    name: '_users',
    kind: 'query',
    access: 'admin',
    description:
      'Lists users, newest first; `query` matches id, email, given_name, family_name, nickname (case-insensitive).',
    input: ListUsersRequest,
    output: Users,
    audit: { action: 'user.list', resourceType: 'user' },
    graphql: { required: false },
    handler: async (ctx, input) => {
      const { users } = deps(ctx);
      const page = pageOf(input?.pagination);
      const { users: list, total } = await users.list({ page: page.page, limit: page.limit, query: input?.query });
      return { pagination: paginationOf(page, total), users: list.map((u) => users.toUserDto(u)) };
    },
  }),
  defineOperation({
    name: '_user',
    kind: 'query',
    access: 'admin',
    description: 'One user by id or email.',
    input: GetUserRequest,
    output: UserSchema,
    audit: { action: 'user.read', resourceType: 'user', resourceId: ({ input, output }) => output?.id ?? input.id },
    handler: async (ctx, input) => {
      const { users } = deps(ctx);
      if (!input.id && !input.email) throw invalidArgument('id or email is required');
      const user = input.id ? await users.findById(input.id) : await users.findByEmail(input.email ?? '');
      if (!user) throw notFound('user not found');
      return users.toUserDto(user);
    },
  }),
  defineOperation({
    name: '_update_user',
    kind: 'mutation',
    access: 'admin',
    description: 'Updates a user; email and phone stay unique; roles from --roles and --protected-roles.',
    input: UpdateUserRequest,
    output: UserSchema,
    audit: {
      action: 'user.update',
      resourceType: 'user',
      resourceId: ({ input }) => input.id,
      metadata: ({ input }) => ({ fields: Object.keys(input).filter((k) => k !== 'id') }),
    },
    handler: async (ctx, input) => {
      const { users, sessions } = deps(ctx);
      // An unknown id is a 404 before anything is said of the input. The copy may be the
      // per-process cache's: nothing below is decided on it (see `before`).
      const current = await mustFind(ctx, input.id);
      const patch: UserPatch = {};
      for (const k of [
        'given_name',
        'family_name',
        'middle_name',
        'nickname',
        'gender',
        'birthdate',
        'picture',
        'email',
        'phone_number',
      ] as const) {
        if (input[k] !== undefined) patch[k] = input[k];
      }
      if (input.email_verified !== undefined) patch.email_verified = input.email_verified;
      if (input.phone_number_verified !== undefined) patch.phone_number_verified = input.phone_number_verified;
      if (input.is_multi_factor_auth_enabled !== undefined)
        patch.is_multi_factor_auth_enabled = input.is_multi_factor_auth_enabled;
      if (input.app_data !== undefined) patch.app_data = input.app_data;
      if (input.reset_mfa) {
        patch.mfa_locked_at = null;
        patch.has_skipped_mfa_setup_at = null;
      }
      if (input.roles !== undefined) {
        const allowed = new Set([...users.roles.allowed, ...users.roles.protected]);
        const bad = input.roles.find((r) => !allowed.has(r));
        if (bad !== undefined) throw invalidArgument(`invalid role "${bad.slice(0, 64)}"`);
        patch.roles = [...new Set(input.roles)];
      }
      // The same rules as update_profile: a call must change something. That a user keeps a way
      // to sign in (clearing both email and phone left an account nobody could log in to) is
      // checked by users.update under the user's lock, against the row as it is then: judged here
      // against `current`, a copy from the per-process cache, it refused a clear that another
      // server's new address made safe.
      if (Object.keys(patch).length === 0) throw invalidArgument('please enter at least one param to update');
      // `before` is the user as the update found it under the user's lock. Judged against a copy
      // read earlier (the per-process cache, another server's write, or another admin's update
      // landing between that read and this write), a role this call took away could live on in
      // a session granted it meanwhile (tokens are stateful, so the ended session takes its
      // tokens with it).
      // A new address the admin did not mark verified is proven as update_profile's is: its
      // request is stored with it (plugins/users/email-verification.ts).
      const {
        before,
        after: updated,
        proofRequested,
      } = await users.update(current.id, patch, { proveNewEmail: ctx.kernel.config.bool('enable-email-verification') });
      // Changed roles must not live on in old sessions and tokens. The same set given again
      // changes nothing: signing the user out everywhere for it would be a surprise.
      const rolesChanged =
        patch.roles !== undefined &&
        (patch.roles.length !== before.roles.length || patch.roles.some((r) => !before.roles.includes(r)));
      if (rolesChanged || proofRequested) await sessions.revokeAll(current.id);
      if (input.reset_mfa) {
        await ctx.kernel.hooks.run('user.mfaReset', { user: updated });
        return users.toUserDto((await users.findById(current.id, { fresh: true })) ?? updated);
      }
      return users.toUserDto(updated);
    },
  }),
  defineOperation({
    name: '_delete_user',
    kind: 'mutation',
    access: 'admin',
    description: "Deletes a user by id (the only key it takes), with the user's sessions, OTP and verification data.",
    input: DeleteUserRequest,
    output: MessageResponse,
    audit: { action: 'user.delete', resourceType: 'user', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      const { users } = deps(ctx);
      const user = await mustFind(ctx, input.id);
      // The `user.deleted` hook ends the user's sessions and refresh tokens (sessions and tokens
      // plugins) and the users service removes the verification requests.
      // The event's outbox rows are stored by the commit that deletes the row.
      await users.delete(user.id, {
        within: (unit) => ctx.kernel.events.emitWithin(unit, 'user.deleted', { user: users.toUserDto(user) }),
      });
      return { message: 'user deleted successfully' };
    },
  }),
  defineOperation({
    name: '_revoke_access',
    kind: 'mutation',
    access: 'admin',
    description: "Revokes a user's access: sets revoked_timestamp and ends all sessions.",
    input: UpdateAccessRequest,
    output: MessageResponse,
    audit: { action: 'user.access_revoke', resourceType: 'user', resourceId: ({ input }) => input.user_id },
    graphql: { arg: 'param' },
    handler: async (ctx, input) => {
      const { users, sessions } = deps(ctx);
      // The stored id from here on, never the text given (users/service.ts findOne).
      const found = await mustFind(ctx, input.user_id);
      const { id } = found;
      // Revoking again ends any session that appeared since, but keeps the moment access was
      // first revoked and tells the event bus nothing new (a second call neither rewrites the
      // timestamp nor sends the event again).
      // The check and the change are one step under the user's lock (users service): two
      // concurrent revokes cannot both see access open and both send the event.
      // The event's outbox rows are stored by the commit that revokes (core/unit-of-work.ts).
      await users.setAccess(id, Math.floor(Date.now() / 1000), {
        within: (unit, user) =>
          ctx.kernel.events.emitWithin(unit, 'user.access_revoked', { user: users.toUserDto(user) }),
      });
      await sessions.revokeAll(id);
      return { message: 'user access revoked successfully' };
    },
  }),
  defineOperation({
    name: '_enable_access',
    kind: 'mutation',
    access: 'admin',
    description: "Restores a user's access: clears revoked_timestamp.",
    input: UpdateAccessRequest,
    output: MessageResponse,
    audit: { action: 'user.access_enable', resourceType: 'user', resourceId: ({ input }) => input.user_id },
    graphql: { arg: 'param' },
    handler: async (ctx, input) => {
      const { users } = deps(ctx);
      const found = await mustFind(ctx, input.user_id);
      // Only a change of state is news for the event bus (see _revoke_access).
      await users.setAccess(found.id, null, {
        within: (unit, user) =>
          ctx.kernel.events.emitWithin(unit, 'user.access_enabled', { user: users.toUserDto(user) }),
      });
      return { message: 'user access enabled successfully' };
    },
  }),
  defineOperation({
    name: '_verification_requests',
    kind: 'query',
    access: 'admin',
    description: 'Lists pending verification requests, newest first (tokens appear only as their digest).',
    input: ListVerificationRequestsRequest,
    output: VerificationRequests,
    audit: { action: 'verification_request.list', resourceType: 'verification_request' },
    graphql: { required: false },
    handler: async (ctx, input) => {
      const { users } = deps(ctx);
      const page = pageOf(input?.pagination);
      const { requests, total } = await users.verifications.list({ page: page.page, limit: page.limit });
      return {
        pagination: paginationOf(page, total),
        verification_requests: requests.map((r) => ({
          id: r.id,
          identifier: r.identifier,
          token: r.tokenHash,
          email: r.email,
          expires: r.expiresAt,
          created_at: r.createdAt,
          updated_at: r.updatedAt,
          nonce: r.nonce,
          ...(r.redirectUri ? { redirect_uri: r.redirectUri } : {}),
        })),
      };
    },
  }),
];
