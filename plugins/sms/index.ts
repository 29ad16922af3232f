/**
 * The `sms` plugin: text messages through a Twilio-compatible gateway (`--sms-*` flags,
 * `--sms-gateway-url`), sent through the guarded outbound client, with per-number and per-IP
 * limits, and the texted one-time codes of the phone flows (codes.ts). SMS one-time codes of MFA
 * (plugins/mfa-otp), phone verification and password reset by SMS use its `sms` service. A text
 * the gateway does not take counts in `latchkey_sms_delivery_failures_total`.
 */
import { Counter } from 'prom-client';
import { ServiceError } from '../../core/errors.js';
import { definePlugin } from '../../core/plugin.js';
import { createSmsCodes } from './codes.js';
import { gatewaySettings, smsConfigProblem, smsFlags } from './flags.js';
import { postMessage } from './gateway.js';
import { createSmsLimits } from './send-limits.js';
import type { SmsService } from './types.js';

export type { SmsCodes, SmsService } from './types.js';
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
  dependsOn: ['outbound', 'keys'],
  flags: smsFlags,
  validateConfig: smsConfigProblem,
  setup(ctx) {
    const settings = gatewaySettings(ctx.config);
    const outbound = ctx.service('outbound');
    const limit = createSmsLimits(ctx.memory);
    const failures = new Counter({
      name: 'latchkey_sms_delivery_failures_total',
      help: 'Texts the SMS gateway did not take: `unreachable` (no answer, refused address, timeout) or `refused` (an error status).',
      labelNames: ['reason'],
      registers: [ctx.metrics],
    });
    return {
      configured: settings !== null,
      async send(to, body) {
        if (!settings) throw new ServiceError('failed_precondition', 'SMS is not configured for this instance');
        if (!E164.test(to))
          throw new ServiceError('invalid_argument', 'phone number must be in E.164 form (+ and 8 to 15 digits)');
        await postMessage(outbound, settings, ctx.logger, to, body, (reason) => failures.inc({ reason }));
      },
      checkSendLimit: limit,
      textable: (phone) => E164.test(phone),
      codes: createSmsCodes(ctx.memory, ctx.service('keys')),
    };
  },
});
