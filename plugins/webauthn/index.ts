/**
 * The webauthn plugin: passkeys (@simplewebauthn/server) as an MFA factor and as a passwordless,
 * also usernameless, sign-in. RP ID and origin come from `--url`. `--disable-webauthn-mfa` or
 * `--disable-mfa` leave it out.
 */
import { definePlugin } from '../../core/plugin.js';
import { createCredentialStore, type CredentialStore } from './credentials.js';
import { WebauthnCredentialEntity } from './entities.js';
import { webauthnOperations } from './operations.js';
import { relyingPartyOf } from './relying-party.js';
import { createWebauthnService } from './service.js';

export type WebauthnService = ReturnType<typeof createWebauthnService> & { credentials: CredentialStore };

declare module '../../core/services.js' {
  interface Services {
    webauthn: WebauthnService;
  }
}

export const webauthnPlugin = definePlugin<WebauthnService>({
  name: 'webauthn',
  description: 'Passkeys: an MFA factor and a passwordless, usernameless sign-in.',
  dependsOn: ['users', 'sign-in', 'mfa'],
  flags: [{ name: 'disable-webauthn-mfa', type: 'boolean', default: false, description: 'Turn off WebAuthn as MFA.' }],
  enabled: (config) => !config.bool('disable-mfa') && !config.bool('disable-webauthn-mfa'),
  entities: [WebauthnCredentialEntity],
  meta: () => ({ is_webauthn_enabled: true }),
  operations: webauthnOperations,
  setup(ctx) {
    const mfa = ctx.service('mfa');
    const credentials = createCredentialStore(ctx.storage);
    const service = createWebauthnService({
      rp: relyingPartyOf(ctx.config),
      memory: ctx.memory,
      events: ctx.events,
      users: ctx.service('users'),
      mfa,
      credentials,
    });
    mfa.addFactor({
      method: 'webauthn',
      enrolled: (user) => credentials.any(user.id),
      offerable: () => true,
      reset: (userId) => credentials.removeAll(userId),
    });
    return { ...service, credentials };
  },
});
