/** `totp_mfa_setup`: a secret, its QR image and recovery codes; nothing is sent. */
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { AuthResponse } from '../accounts/index.js';
import { OtpMfaSetupRequest } from '../mfa/index.js';

export const totpOperations: AnyOperation[] = [
  defineOperation({
    name: 'totp_mfa_setup',
    kind: 'mutation',
    access: 'public',
    description:
      'Starts TOTP setup for the signed-in caller or a pending first-time MFA offer: the secret, a QR PNG data URL and recovery codes; finished by verify_otp with is_totp.',
    input: OtpMfaSetupRequest,
    output: AuthResponse,
    audit: {
      action: 'mfa.enroll',
      resourceType: 'user',
      resourceId: ({ caller, output }) => caller?.userId ?? output?.user?.id,
      metadata: () => ({ method: 'totp' }),
    },
    graphql: { required: false },
    handler: async (ctx, input) => {
      const { user } = await ctx.kernel.service('mfa').enrollee(ctx, input ?? {});
      const setup = await ctx.kernel.service('totp').setup(user);
      return {
        message: 'Scan the QR code with an authenticator app, then enter its code',
        should_show_totp_screen: true,
        authenticator_scanner_image: setup.image,
        authenticator_secret: setup.secret,
        authenticator_recovery_codes: setup.recoveryCodes,
      };
    },
  }),
];
