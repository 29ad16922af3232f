/**
 * The password-reset plugin: `forgot_password` mails a single-use link to a reset form
 * (`--reset-password-url`, or the hosted page's), or for a `phone_number` texts a code through
 * the sms service (phone-reset.ts); `reset_password` sets the password with either and ends every
 * session and refresh token of the user. Invitations reuse its links.
 */
import { defineOperation } from '../../core/operations.js';
import { definePlugin } from '../../core/plugin.js';
import { MessageResponse } from '../../core/schema.js';
import { forgotPassword } from './forgot-password.js';
import { createPasswordResetService } from './links.js';
import { resetPassword } from './reset-password.js';
import { ForgotPasswordRequest, ForgotPasswordResponse, ResetPasswordRequest } from './schemas.js';
import type { PasswordResetService } from './types.js';

export type { PasswordLinkKind, PasswordResetService } from './types.js';
export { HOSTED_RESET_PATH } from './links.js';

function resetUrlProblem(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol === 'https:' || url.protocol === 'http:') return undefined;
  } catch {
    // reported below
  }
  return `--reset-password-url must be an absolute http(s) URL; got "${value.slice(0, 100)}"`;
}

export const passwordResetPlugin = definePlugin<PasswordResetService>({
  name: 'password-reset',
  description: 'Password reset by a mailed single-use link or a texted code (forgot_password, reset_password).',
  dependsOn: ['users', 'sessions', 'tokens', 'email'],
  flags: [
    {
      name: 'reset-password-url',
      type: 'string',
      description: 'Page that reset links open, with ?token= (default: the hosted page /app/reset-password).',
    },
  ],
  validateConfig: (config) => resetUrlProblem(config.string('reset-password-url')),
  operations: [
    defineOperation({
      name: 'forgot_password',
      kind: 'mutation',
      access: 'public',
      description:
        'Mails a password reset link, or texts a code for a phone_number; answers the same, in the same time, for unknown addresses and numbers.',
      input: ForgotPasswordRequest,
      output: ForgotPasswordResponse,
      handler: forgotPassword,
    }),
    defineOperation({
      name: 'reset_password',
      kind: 'mutation',
      access: 'public',
      description:
        'Sets a new password with a mailed token, or a texted otp with its phone_number; ends every session and refresh token of the user.',
      input: ResetPasswordRequest,
      output: MessageResponse,
      audit: { action: 'user.password_reset', resourceType: 'user', failures: true },
      handler: resetPassword,
    }),
  ],
  setup: (ctx) => createPasswordResetService(ctx.memory),
});
