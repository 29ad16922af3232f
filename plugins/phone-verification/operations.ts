/**
 * `resend_otp` for builds without the MFA code plugin (`--disable-mfa`, or email and SMS codes
 * both off): the plugin that declares it otherwise (plugins/mfa-otp) asks this plugin first, and
 * without it a phone number waiting for its code must still be able to ask for a new one.
 */
import { unauthenticated } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import type { BuildInfo } from '../../core/plugin.js';
import { MessageResponse } from '../../core/schema.js';
import { ResendOTPRequest } from '../mfa/index.js';

const resendOtp = defineOperation({
  name: 'resend_otp',
  kind: 'mutation',
  access: 'public',
  description: 'Sends a new verification code to a phone number waiting for one; the previous code stops working.',
  input: ResendOTPRequest,
  output: MessageResponse,
  graphql: { required: false },
  handler: async (ctx, input) => {
    const resent = input?.phone_number
      ? await ctx.kernel.service('phone-verification').resend(ctx, { phone_number: input.phone_number })
      : null;
    if (!resent) throw unauthenticated('unauthorized');
    return resent;
  },
});

export function phoneOperations(build: BuildInfo): AnyOperation[] {
  return build.plugins.some((p) => p.name === 'mfa-otp') ? [] : [resendOtp];
}
