/** `update_profile`: the caller's profile, password, email or phone number. */
import { invalidArgument } from '../../../core/errors.js';
import { defineOperation } from '../../../core/operations.js';
import { MessageResponse } from '../../../core/schema.js';
import type { UserPatch } from '../../users/index.js';
import type { SessionRecord } from '../../sessions/index.js';
import { hasRoles } from '../relations.js';
import { UpdateProfileRequest } from '../schemas.js';
import { deps, lockedOut, loginsBusy } from '../service.js';
import { currentSession } from './current-session.js';

export const updateProfileOperation = defineOperation({
  name: 'update_profile',
  kind: 'mutation',
  access: 'session',
  description: "Updates the caller's profile, password, email or phone number.",
  input: UpdateProfileRequest,
  output: MessageResponse,
  audit: {
    action: 'user.password_change',
    resourceType: 'user',
    resourceId: ({ ctx }) => ctx.principal?.userId,
    when: ({ input }) => input.new_password !== undefined,
  },
  handler: async (ctx, input) => {
    const { session, user } = await currentSession(ctx, true);
    const { users, sessions, config } = deps(ctx);
    const patch: UserPatch = {};
    for (const k of [
      'given_name',
      'family_name',
      'middle_name',
      'nickname',
      'gender',
      'birthdate',
      'picture',
    ] as const) {
      if (input[k] !== undefined) patch[k] = input[k];
    }
    if (input.app_data !== undefined) patch.app_data = input.app_data;
    if (input.is_multi_factor_auth_enabled !== undefined)
      patch.is_multi_factor_auth_enabled = input.is_multi_factor_auth_enabled;
    if (input.email !== undefined) patch.email = users.normalizeEmail(input.email);
    // An empty phone number removes it (the users service keeps a user with neither address
    // from being made). The email is not removable here: the basic-auth login needs it.
    if (input.phone_number !== undefined)
      patch.phone_number = input.phone_number.trim() === '' ? '' : users.normalizePhone(input.phone_number);
    const changingPassword = input.new_password !== undefined || input.confirm_new_password !== undefined;
    if (changingPassword || input.old_password !== undefined) {
      if (input.old_password === undefined) throw invalidArgument('old password is required to change the password');
      if (input.new_password === undefined) throw invalidArgument('new password is required');
      if (input.new_password !== input.confirm_new_password)
        throw invalidArgument('new password and confirm new password does not match');
      users.checkPasswordPolicy(input.new_password);
      const check = await users.verifyPassword(user, input.old_password);
      if (check === 'locked') throw lockedOut();
      if (check === 'busy') throw loginsBusy();
      if (check !== 'ok') throw invalidArgument('incorrect old password');
      patch.password = input.new_password;
    }
    if (Object.keys(patch).length === 0) throw invalidArgument('please enter at least one param to update');
    // A new address is proven as at signup (login refuses unverified ones): its request is
    // stored with it, and the sessions end until it is proven (authorizer does so).
    const { proofRequested } = await users.update(user.id, patch, {
      proveNewEmail: config.bool('enable-email-verification'),
    });
    if (proofRequested) {
      await sessions.revokeAll(user.id);
      sessions.clearCookies(ctx);
      return { message: 'Profile details updated successfully' };
    }
    if (patch.password !== undefined) {
      // A new password ends every other session (someone else may know the old one) and keeps
      // the caller's. Called with a token, the session keeps its id: its tokens name it, and this
      // operation answers a message, with no new tokens to hand out (the caller's app must not be
      // signed out by its own password change; authorizer, whose SDK calls this, ends no session
      // here). Called with the cookie, it is renewed: a new id in a new
      // cookie, as after a sign-in.
      const byToken = ctx.principal?.claims !== undefined;
      let kept: SessionRecord | null;
      if (byToken) kept = await sessions.keepOnly(session);
      else {
        await sessions.revokeAll(user.id);
        kept = await sessions.create({
          userId: user.id,
          roles: session.roles,
          scopes: session.scopes,
          amr: session.amr,
          authTime: session.authTime,
        });
      }
      // An admin's revoke, deletion or role change that landed since this request read the
      // user ended the others before `kept` was stored, and would let it live with access or
      // roles the user no longer has. Read after storing it: a change
      // committed later is followed by its own ending of every session, which finds `kept`.
      const now = kept ? await users.findById(user.id, { fresh: true }) : null;
      if (kept && (!now || now.revokedTimestamp !== null || !hasRoles(now.roles, session.roles))) {
        await sessions.revoke(user.id, kept.id);
        kept = null;
      }
      if (!byToken) {
        if (kept) sessions.setCookies(ctx, kept);
        else sessions.clearCookies(ctx);
      }
    }
    return { message: 'Profile details updated successfully' };
  },
});
