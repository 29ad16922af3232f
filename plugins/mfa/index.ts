/**
 * The mfa plugin: the MFA sign-in gate on every login path, the pending sign-ins of the `mfa`
 * cookie, `verify_otp`, `skip_mfa_setup`, `lock_mfa`, factor lockouts and `enrolled_mfa_methods`.
 * The factors themselves are plugins of their own (totp, mfa-otp, webauthn) that join the
 * `mfa` service, so a build may leave any of them out (docs/mfa.md).
 */
import { definePlugin } from '../../core/plugin.js';
import { MfaFactorEntity } from './entities.js';
import { mfaOperations } from './operations.js';
import { createMfaService } from './service.js';
import type { MfaService } from './types.js';

export type {
  FactorRecord,
  FactorStore,
  MfaFactor,
  MfaMethod,
  MfaService,
  OtpHint,
  OtpVerifier,
  PendingSignIn,
  PendingState,
} from './types.js';
export { OtpMfaSetupRequest, ResendOTPRequest } from './schemas.js';
export { MFA_COOKIE } from './pending.js';
export { MAX_FAILURES, LOCK_MS } from './failures.js';

declare module '../../core/services.js' {
  interface Services {
    mfa: MfaService;
  }
}

/** Whether any factor is on: `--disable-mfa` turns all off, each `--disable-*` flag one. */
export function anyFactorOn(config: import('../../core/config.js').Config): boolean {
  if (config.bool('disable-mfa')) return false;
  return ['disable-totp-login', 'disable-email-otp', 'disable-sms-otp', 'disable-webauthn-mfa'].some(
    (f) => !config.bool(f),
  );
}

export const mfaPlugin = definePlugin<MfaService>({
  name: 'mfa',
  description: 'The MFA sign-in gate, pending MFA sign-ins, verify_otp, skip_mfa_setup and lock_mfa.',
  dependsOn: ['users', 'sign-in'],
  flags: [
    {
      name: 'enforce-mfa',
      type: 'boolean',
      default: false,
      description: 'Require MFA for every user (default false: optional).',
    },
    { name: 'disable-mfa', type: 'boolean', default: false, description: 'Turn off every MFA factor.' },
  ],
  entities: [MfaFactorEntity],
  meta: (config) => ({
    is_multi_factor_auth_enabled: anyFactorOn(config),
    is_mfa_enforced: anyFactorOn(config) && config.bool('enforce-mfa'),
  }),
  operations: mfaOperations,
  setup(ctx) {
    const service = createMfaService({
      config: ctx.config,
      storage: ctx.storage,
      memory: ctx.memory,
      events: ctx.events,
      users: ctx.service('users'),
      signIn: ctx.service('sign-in'),
    });
    ctx.service('sign-in').addGate(service.gate);
    ctx.hooks.on('user.deleted', ({ user }) => service.resetUser(user.id, false));
    ctx.hooks.on('user.mfaReset', ({ user }) => service.resetUser(user.id, true));
    return service;
  },
});
