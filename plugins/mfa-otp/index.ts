/**
 * The mfa-otp plugin: one-time codes by email and SMS as MFA factors (explicit enrollment, codes
 * stored as sealed digests, single use, five minutes). Joins the `mfa` service; delivery goes
 * through the optional `email` and `sms` services.
 */
import type { RequestContext } from '../../core/context.js';
import { definePlugin } from '../../core/plugin.js';
import type { OtpHint } from '../mfa/index.js';
import { createChannels, type OtpMethod } from './channels.js';
import { createCodeStore } from './codes.js';
import { otpOperations } from './operations.js';
import { createOtpFactors } from './service.js';

export type { OtpMethod } from './channels.js';

export interface MfaOtpService {
  setup(ctx: RequestContext, method: OtpMethod, hint: OtpHint): Promise<{ message: string }>;
  resend(ctx: RequestContext, hint: OtpHint): Promise<{ message: string }>;
}

declare module '../../core/services.js' {
  interface Services {
    'mfa-otp': MfaOtpService;
  }
}

export const mfaOtpPlugin = definePlugin<MfaOtpService>({
  name: 'mfa-otp',
  description: 'Email and SMS one-time codes as MFA factors.',
  dependsOn: ['keys', 'users', 'mfa'],
  flags: [
    { name: 'disable-email-otp', type: 'boolean', default: false, description: 'Turn off email OTP.' },
    { name: 'disable-sms-otp', type: 'boolean', default: false, description: 'Turn off SMS OTP.' },
  ],
  enabled: (config) =>
    !config.bool('disable-mfa') && !(config.bool('disable-email-otp') && config.bool('disable-sms-otp')),
  meta: (config) => ({
    is_email_otp_mfa_enabled: !config.bool('disable-email-otp'),
    is_sms_otp_mfa_enabled: !config.bool('disable-sms-otp'),
  }),
  operations: otpOperations,
  setup(ctx) {
    const mfa = ctx.service('mfa');
    const channels = createChannels(ctx);
    const codes = createCodeStore(ctx.memory, ctx.service('keys'));
    const factors = createOtpFactors({ mfa, memory: ctx.memory, codes, channels });
    mfa.addOtpVerifier('otp', factors.verify);
    for (const method of ['email_otp', 'sms_otp'] as const) {
      if (!channels[method].on) continue;
      mfa.addFactor({
        method,
        enrolled: async (user) =>
          factors.usable(method) && (await mfa.factors.find(user.id, method))?.verified === true,
        offerable: (user) => factors.usable(method) && channels[method].addressOf(user) !== null,
        challenge: (ctx, user) => factors.send(ctx, method, user),
        reset: (userId) => codes.remove(userId),
      });
    }
    return { setup: factors.setup, resend: factors.resend };
  },
});
