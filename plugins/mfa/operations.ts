/**
 * The MFA operations every factor shares: `verify_otp` (email or SMS code,
 * or TOTP with `is_totp`), `skip_mfa_setup` and `lock_mfa`.
 */
import type { RequestContext } from '../../core/context.js';
import { failedPrecondition, permissionDenied, unauthenticated } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse } from '../../core/schema.js';
import { AuthResponse } from '../accounts/index.js';
import { LockMfaRequest, SkipMfaSetupRequest, VerifyOTPRequest } from './schemas.js';

const mfa = (ctx: RequestContext) => ctx.kernel.service('mfa');

export const mfaOperations: AnyOperation[] = [
  defineOperation({
    name: 'verify_otp',
    kind: 'mutation',
    access: 'public',
    description:
      'Proves the second factor of a pending sign-in (the `mfa` cookie) with an email or SMS code, or a TOTP code (`is_totp`); also completes a factor set up while signed in, and the verification of a phone number (`phone_number` with the texted code).',
    input: VerifyOTPRequest,
    output: AuthResponse,
    audit: {
      action: 'user.mfa_verify',
      resourceType: 'user',
      failures: true,
      resourceId: ({ output }) => output?.user?.id,
      actor: ({ output }) => (output?.user ? { kind: 'user', id: output.user.id } : undefined),
    },
    handler: async (ctx, input) => {
      const service = mfa(ctx);
      // A phone number waiting for its verification code (--enable-phone-verification) comes
      // first: its sign-in has not reached the MFA gate yet.
      if (!input.is_totp && input.phone_number && ctx.kernel.hasService('phone-verification')) {
        const verified = await ctx.kernel
          .service('phone-verification')
          .verify(ctx, { phone_number: input.phone_number, otp: input.otp });
        if (verified) return verified;
      }
      const verifier = service.verifier(input.is_totp ? 'totp' : 'otp');
      if (!verifier)
        throw failedPrecondition(input.is_totp ? 'TOTP is not enabled' : 'email and SMS codes are not enabled');
      const hint = {
        ...(input.email ? { email: input.email } : {}),
        ...(input.phone_number ? { phone_number: input.phone_number } : {}),
      };
      const pending = await service.pending(ctx);
      if (pending) {
        const user = await service.liveUser(pending.userId);
        service.checkHint(user, hint);
        await verifier(ctx, user, input.otp, { ...hint, enrolledOnly: pending.state === 'verify' });
        await service.refreshEnrolled(user.id);
        // RFC 8176 `otp` for every one-time code (TOTP, mailed or texted).
        return service.complete(ctx, pending, 'otp', 'Multi factor authentication verified successfully');
      }
      // Without a pending sign-in: a signed-in user finishing the setup of a factor.
      const principal = await ctx.kernel.authenticate('session', ctx, undefined);
      if (principal?.kind !== 'user' || !principal.userId)
        throw unauthenticated('the multi-factor sign-in has expired; sign in again');
      const user = await service.liveUser(principal.userId);
      service.checkHint(user, hint);
      await verifier(ctx, user, input.otp, { ...hint, enrolledOnly: false });
      const updated = (await service.refreshEnrolled(user.id)) ?? user;
      return { message: 'Verified successfully', user: ctx.kernel.service('users').toUserDto(updated) };
    },
  }),
  defineOperation({
    name: 'skip_mfa_setup',
    kind: 'mutation',
    access: 'public',
    description: 'Declines a first-time MFA offer and issues the withheld tokens; refused under --enforce-mfa.',
    input: SkipMfaSetupRequest,
    output: AuthResponse,
    graphql: { required: false },
    handler: async (ctx, input) => {
      const service = mfa(ctx);
      if (ctx.kernel.config.bool('enforce-mfa')) throw failedPrecondition('multi-factor authentication is enforced');
      const pending = await service.pending(ctx);
      if (!pending) throw unauthenticated('the multi-factor sign-in has expired; sign in again');
      if (pending.state !== 'offer') throw permissionDenied('no multi-factor offer to skip');
      const user = await service.liveUser(pending.userId);
      service.checkHint(user, input ?? {});
      await ctx.kernel.service('users').update(user.id, { has_skipped_mfa_setup_at: Math.floor(Date.now() / 1000) });
      return service.complete(ctx, pending, null, 'Multi factor authentication setup skipped');
    },
  }),
  defineOperation({
    name: 'lock_mfa',
    kind: 'mutation',
    access: 'public',
    description:
      'Records the loss of the only MFA factor(s) of a pending sign-in: no token, the account waits for an admin reset; refused when a verified email or SMS code factor is enrolled.',
    input: LockMfaRequest,
    output: MessageResponse,
    graphql: { required: false },
    handler: async (ctx, input) => {
      const service = mfa(ctx);
      const pending = await service.pending(ctx);
      if (!pending) throw unauthenticated('the multi-factor sign-in has expired; sign in again');
      if (pending.state !== 'verify') throw permissionDenied('no multi-factor factor to lock');
      const user = await service.liveUser(pending.userId);
      service.checkHint(user, input ?? {});
      for (const method of ['email_otp', 'sms_otp'] as const) {
        if (!service.isOn(method)) continue;
        const factor = await service.factors.find(user.id, method);
        if (factor?.verified)
          throw failedPrecondition('a verified email or SMS code factor is enrolled; verify with it instead');
      }
      if (!(await service.discard(ctx, pending)))
        throw unauthenticated('the multi-factor sign-in has expired; sign in again');
      await ctx.kernel.service('users').update(user.id, { mfa_locked_at: Math.floor(Date.now() / 1000) });
      return { message: 'Multi factor authentication locked; an administrator must reset it' };
    },
  }),
];
