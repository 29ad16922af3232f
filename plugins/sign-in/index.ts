/**
 * The sign-in plugin (`sign-in` service): the one place where a proven first factor becomes a
 * session and tokens, after the gates other plugins register (the MFA gate), and so the one place
 * every sign-in is audited (audit.ts).
 */
import { definePlugin } from '../../core/plugin.js';
import { auditedSignIns } from './audit.js';
import { createSignInService } from './service.js';
import type { SignInService } from './types.js';

export type { AuthResult, IssuedAuthResult, SignInAttempt, SignInGate, SignInService } from './types.js';
export { recordLoginRefusal, type LoginRefusal } from './audit.js';
export { loginEvent } from './login-event.js';

declare module '../../core/services.js' {
  interface Services {
    'sign-in': SignInService;
  }
}

export const signInPlugin = definePlugin<SignInService>({
  name: 'sign-in',
  description: 'Turns a proven first factor into a session and tokens, after the sign-in gates (MFA).',
  dependsOn: ['users', 'sessions', 'tokens'],
  setup: (ctx) =>
    auditedSignIns(
      createSignInService({
        users: ctx.service('users'),
        sessions: ctx.service('sessions'),
        tokens: ctx.service('tokens'),
        storage: ctx.storage,
        logger: ctx.logger,
      }),
    ),
});
