/**
 * The totp plugin: TOTP as an MFA factor (RFC 6238, otplib), with recovery codes. Joins the
 * `mfa` service; `--disable-totp-login` or `--disable-mfa` leave it out.
 */
import { definePlugin } from '../../core/plugin.js';
import { RecoveryCodeEntity } from './entities.js';
import { totpOperations } from './operations.js';
import { createTotpService } from './service.js';
import type { TotpSetup } from './service.js';
import type { UserRecord } from '../users/index.js';

export type { TotpSetup } from './service.js';

export interface TotpService {
  /** A new (unverified) secret, its QR image and fresh recovery codes; verify_otp with is_totp finishes it. */
  setup(user: UserRecord): Promise<TotpSetup>;
}

declare module '../../core/services.js' {
  interface Services {
    totp: TotpService;
  }
}

export const totpPlugin = definePlugin<TotpService>({
  name: 'totp',
  description: 'TOTP authenticator apps as an MFA factor, with recovery codes.',
  dependsOn: ['keys', 'users', 'mfa'],
  flags: [{ name: 'disable-totp-login', type: 'boolean', default: false, description: 'Turn off TOTP.' }],
  enabled: (config) => !config.bool('disable-mfa') && !config.bool('disable-totp-login'),
  entities: [RecoveryCodeEntity],
  meta: () => ({ is_totp_mfa_enabled: true }),
  operations: totpOperations,
  setup(ctx) {
    const mfa = ctx.service('mfa');
    const totp = createTotpService({
      storage: ctx.storage,
      keys: ctx.service('keys'),
      mfa,
      issuer: ctx.config.string('organization-name', 'Latchkey'),
    });
    mfa.addOtpVerifier('totp', totp.verifyCode);
    mfa.addFactor({
      method: 'totp',
      enrolled: async (user) => (await mfa.factors.find(user.id, 'totp'))?.verified === true,
      offerable: () => true,
      reset: (userId) => totp.removeRecoveryCodes(userId),
    });
    return { setup: totp.setup };
  },
});
