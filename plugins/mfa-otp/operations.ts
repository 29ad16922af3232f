/** `email_otp_mfa_setup`, `sms_otp_mfa_setup` and `resend_otp`. */
import type { RequestContext } from '../../core/context.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse } from '../../core/schema.js';
import { OtpMfaSetupRequest, ResendOTPRequest } from '../mfa/index.js';
import type { MfaOtpService } from './index.js';

const otp = (ctx: RequestContext): MfaOtpService => ctx.kernel.service('mfa-otp');

export const otpOperations: AnyOperation[] = [
  defineOperation({
    name: 'email_otp_mfa_setup',
    kind: 'mutation',
    access: 'public',
    description:
      "Sends a code to the caller's own email and creates an unverified email-OTP enrollment (signed-in caller or pending first-time MFA offer); verify_otp finishes it.",
    input: OtpMfaSetupRequest,
    output: MessageResponse,
    audit: {
      action: 'mfa.enroll',
      resourceType: 'user',
      resourceId: ({ caller }) => caller?.userId,
      metadata: () => ({ method: 'email_otp' }),
    },
    graphql: { required: false },
    handler: (ctx, input) => otp(ctx).setup(ctx, 'email_otp', input ?? {}),
  }),
  defineOperation({
    name: 'sms_otp_mfa_setup',
    kind: 'mutation',
    access: 'public',
    description:
      "Sends a code to the caller's own phone number and creates an unverified SMS-OTP enrollment; verify_otp finishes it.",
    input: OtpMfaSetupRequest,
    output: MessageResponse,
    audit: {
      action: 'mfa.enroll',
      resourceType: 'user',
      resourceId: ({ caller }) => caller?.userId,
      metadata: () => ({ method: 'sms_otp' }),
    },
    graphql: { required: false },
    handler: (ctx, input) => otp(ctx).setup(ctx, 'sms_otp', input ?? {}),
  }),
  defineOperation({
    name: 'resend_otp',
    kind: 'mutation',
    access: 'public',
    description:
      'Sends a new code for the pending MFA sign-in or setup, or for a phone number waiting for its verification code; the previous code stops working.',
    input: ResendOTPRequest,
    output: MessageResponse,
    graphql: { required: false },
    handler: async (ctx, input) => {
      // A phone number waiting for its verification code (--enable-phone-verification) comes first.
      if (input?.phone_number && ctx.kernel.hasService('phone-verification')) {
        const resent = await ctx.kernel.service('phone-verification').resend(ctx, { phone_number: input.phone_number });
        if (resent) return resent;
      }
      return otp(ctx).resend(ctx, input ?? {});
    },
  }),
];
