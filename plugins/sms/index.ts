/**
 * The `sms` plugin: text messages through a Twilio-compatible gateway (`--sms-*` flags,
 * `--sms-gateway-url`), sent through the guarded outbound client, with per-number and per-IP
 * limits. SMS one-time codes (plugins/mfa-otp) and phone flows use its `sms` service.
 */
import { ServiceError } from '../../core/errors.js';
import { definePlugin } from '../../core/plugin.js';
import { gatewaySettings, smsConfigProblem, smsFlags } from './flags.js';
import { postMessage } from './gateway.js';
import { createSmsLimits } from './send-limits.js';
import type { SmsService } from './types.js';

export type { SmsService } from './types.js';
export { SMS_PER_IP, SMS_PER_NUMBER, SMS_WINDOW_MS } from './send-limits.js';

declare module '../../core/services.js' {
  interface Services {
    sms: SmsService;
  }
}

/** E.164: a plus sign and 8 to 15 digits (ITU-T E.164 §6). */
const E164 = /^\+[1-9][0-9]{7,14}$/;

export const smsPlugin = definePlugin<SmsService>({
  name: 'sms',
  description: 'Text messages through a Twilio-compatible gateway, with per-number and per-IP limits.',
  dependsOn: ['outbound'],
  flags: smsFlags,
  validateConfig: smsConfigProblem,
  setup(ctx) {
    const settings = gatewaySettings(ctx.config);
    const outbound = ctx.service('outbound');
    const limit = createSmsLimits(ctx.memory);
    return {
      configured: settings !== null,
      async send(to, body) {
        if (!settings) throw new ServiceError('failed_precondition', 'SMS is not configured for this instance');
        if (!E164.test(to))
          throw new ServiceError('invalid_argument', 'phone number must be in E.164 form (+ and 8 to 15 digits)');
        await postMessage(outbound, settings, ctx.logger, to, body);
      },
      checkSendLimit: limit,
    };
  },
});
