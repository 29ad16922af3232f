/**
 * The phone-verification plugin (`--enable-phone-verification`): an account that signs up or in
 * with a phone number and password proves the number with a texted code before it gets a session.
 * Its sign-in gate texts the code (gate.ts); `verify_otp` and `resend_otp` with the
 * `phone_number` take and renew it (the mfa plugins ask this plugin's service first). Codes come
 * from the sms service's code store: six digits, single use, ten minutes, stored as a sealed
 * digest, five wrong codes lock for 15 minutes; texts count against the per-number and per-IP
 * limits.
 */
import type { Config } from '../../core/config.js';
import { definePlugin } from '../../core/plugin.js';
import { createPhoneGate } from './gate.js';
import { phoneOperations } from './operations.js';
import { createPhoneVerification } from './service.js';
import type { PhoneVerificationService } from './types.js';

export type { PhoneVerificationService } from './types.js';
export { CODE_SENT } from './gate.js';
export { CODE_RESENT, PHONE_VERIFIED } from './service.js';

const GATEWAY_FLAGS = ['sms-account-sid', 'sms-api-key', 'sms-api-secret', 'sms-sender'];

function configProblem(config: Config): string | undefined {
  if (!config.bool('enable-phone-verification')) return undefined;
  if (GATEWAY_FLAGS.some((f) => config.string(f, '') === ''))
    return `--enable-phone-verification texts codes and needs the SMS gateway: ${GATEWAY_FLAGS.map((f) => `--${f}`).join(', ')}.`;
  return undefined;
}

export const phoneVerificationPlugin = definePlugin<PhoneVerificationService>({
  name: 'phone-verification',
  description: 'Phone verification: a texted code proves the number of a phone account before its first session.',
  dependsOn: ['users', 'sign-in', 'sms'],
  enabled: (config) => config.bool('enable-phone-verification'),
  flags: [
    {
      name: 'enable-phone-verification',
      type: 'boolean',
      default: false,
      description:
        'Require a verified phone number: a phone-number signup or login texts a code, and verify_otp with the phone_number releases the session. Needs the --sms-* gateway flags.',
    },
  ],
  validateConfig: configProblem,
  meta: (config) => ({ is_phone_verification_enabled: config.bool('enable-phone-verification') }),
  operations: phoneOperations,
  setup(ctx) {
    const sms = ctx.service('sms');
    const organization = ctx.config.string('organization-name', 'Latchkey');
    ctx.service('sign-in').addGate(createPhoneGate(sms, organization), { first: true });
    return createPhoneVerification({
      users: ctx.service('users'),
      signIn: ctx.service('sign-in'),
      sms,
      organization,
    });
  },
});
