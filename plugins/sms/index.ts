/**
 * The `sms` plugin: text messages through a Twilio-compatible gateway (`--sms-*` flags,
 * `--sms-gateway-url`), queued in a durable outbox in the main database and posted by its worker
 * through the guarded outbound client (outbox.ts), with per-number and per-IP limits, and the
 * texted one-time codes of the phone flows (codes.ts). SMS one-time codes of MFA
 * (plugins/mfa-otp), phone verification and password reset by SMS use its `sms` service. An
 * attempt the gateway does not take counts in `latchkey_sms_delivery_failures_total`; a text is
 * not sent after the code it carries expires (outbox.ts). Admins
 * list the outbox with `_sms_outbox` and queue a failed text again with `_retry_sms`
 * (operations.ts).
 */
import { Counter } from 'prom-client';
import { ServiceError } from '../../core/errors.js';
import { definePlugin } from '../../core/plugin.js';
import { createSmsCodes } from './codes.js';
import { SmsOutboxEntity } from './entities.js';
import { gatewaySettings, smsConfigProblem, smsFlags } from './flags.js';
import { attachInternals, smsOperations } from './operations.js';
import { createSmsOutbox } from './outbox.js';
import { createSmsLimits, SMS_PER_IP, SMS_PER_NUMBER } from './send-limits.js';
import type { SmsService } from './types.js';

export type { SmsCodes, SmsSendOptions, SmsService } from './types.js';
export { SMS_PER_IP, SMS_PER_NUMBER, SMS_WINDOW_MS } from './send-limits.js';

declare module '../../core/services.js' {
  interface Services {
    sms: SmsService;
  }
}

/** E.164: a plus sign and 8 to 15 digits (ITU-T E.164 §6). */
const E164 = /^\+[1-9][0-9]{7,14}$/;

/** The sealing purpose of outbox bodies (keys service). */
const SMS_BODY_PURPOSE = 'sms-outbox-body';

export const smsPlugin = definePlugin<SmsService>({
  name: 'sms',
  description: 'Text messages through a Twilio-compatible gateway, with per-number and per-IP limits.',
  dependsOn: ['outbound', 'keys'],
  flags: smsFlags,
  validateConfig: smsConfigProblem,
  entities: [SmsOutboxEntity],
  operations: smsOperations,
  setup(ctx) {
    const { config } = ctx;
    const settings = gatewaySettings(config);
    const keys = ctx.service('keys');
    const limit = createSmsLimits(
      ctx.memory,
      config.number('sms-limit-per-number', SMS_PER_NUMBER),
      config.number('sms-limit-per-ip', SMS_PER_IP),
    );
    const failures = new Counter({
      name: 'latchkey_sms_delivery_failures_total',
      help: 'Attempts the SMS gateway did not take: `unreachable` (no answer, refused address, timeout), `refused` (an error status); `failed` counts texts given up: after --sms-max-attempts, or because the code they carry expires before they can be sent.',
      labelNames: ['reason'],
      registers: [ctx.metrics],
    });
    const outbox = createSmsOutbox({
      storage: ctx.storage,
      settings,
      outbound: ctx.service('outbound'),
      logger: ctx.logger,
      maxAttempts: config.number('sms-max-attempts', 6),
      retryDelayMs: config.number('sms-retry-delay-ms', 2000),
      bodies: {
        seal: (text) => keys.seal(text, SMS_BODY_PURPOSE),
        open: (sealed) => keys.open(sealed, SMS_BODY_PURPOSE),
      },
      onFailure: (reason) => failures.inc({ reason }),
      onFailed: () => failures.inc({ reason: 'failed' }),
    });
    outbox.start();
    ctx.onClose(() => outbox.stop());
    attachInternals(ctx.storage, { outbox });
    return {
      configured: settings !== null,
      async send(to, body, options) {
        if (!settings) throw new ServiceError('failed_precondition', 'SMS is not configured for this instance');
        if (!E164.test(to))
          throw new ServiceError('invalid_argument', 'phone number must be in E.164 form (+ and 8 to 15 digits)');
        await outbox.add(to, body, options);
      },
      stats: () => outbox.stats(),
      checkSendLimit: limit,
      textable: (phone) => E164.test(phone),
      codes: createSmsCodes(ctx.memory, ctx.service('keys')),
    };
  },
});
