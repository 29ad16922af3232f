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
    description: 'Sends a new MFA code for the pending sign-in or setup; the previous code stops working.',
    input: ResendOTPRequest,
    output: MessageResponse,
    graphql: { required: false },
    handler: (ctx, input) => otp(ctx).resend(ctx, input ?? {}),
  }),
];
