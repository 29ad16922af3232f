/**
 * `reset_password` by a mailed token (a reset or an invitation link): the new password is
 * checked before the token is taken (a refused password leaves the link usable), the token works
 * once and only for the address it was sent to, the address counts as verified (the link reached
 * it), and every session and refresh token of the user ends (a password reset invalidates the
 * user's sessions). The phone variant (`otp`, `phone_number`) takes a
 * texted code (phone-reset.ts).
 */
import type { RequestContext } from '../../core/context.js';
import { invalidArgument, permissionDenied } from '../../core/errors.js';
import { passwordTokens } from './links.js';
import { resetPasswordByCode } from './phone-reset.js';

export const PASSWORD_UPDATED = 'Password updated successfully.';
const invalidToken = () => invalidArgument('invalid or expired token');

export interface ResetPasswordInput {
  token?: string;
  otp?: string;
  phone_number?: string;
  password: string;
  confirm_password: string;
}

export async function resetPassword(ctx: RequestContext, input: ResetPasswordInput) {
  const users = ctx.kernel.service('users');
  if (input.token === undefined || input.token === '') {
    // The phone variant: the texted code (phone-reset.ts).
    if (input.otp || input.phone_number) {
      await resetPasswordByCode(ctx, input);
      return { message: PASSWORD_UPDATED };
    }
    throw invalidArgument('token, or otp and phone_number, is required');
  }
  if (input.password !== input.confirm_password) throw invalidArgument('password and confirm password does not match');
  users.checkPasswordPolicy(input.password);
  const grant = await passwordTokens(ctx.kernel.memory).take(input.token);
  if (!grant) throw invalidToken();
  const user = await users.findById(grant.userId, { fresh: true });
  if (!user || user.email !== grant.email) throw invalidToken();
  if (user.revokedTimestamp !== null) throw permissionDenied('user access has been revoked');
  await users.update(user.id, { password: input.password, email_verified: true });
  await ctx.kernel.service('sessions').revokeAll(user.id);
  await ctx.kernel.service('tokens').forgetUser(user.id);
  return { message: PASSWORD_UPDATED };
}
