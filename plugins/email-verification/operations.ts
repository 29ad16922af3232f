/** `verify_email` and `resend_verify_email`. */
import { failedPrecondition, invalidArgument } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse } from '../../core/schema.js';
import { AuthResponse, VERIFICATION_SENT } from '../accounts/index.js';
import { SIGNUP_IDENTIFIER, UPDATE_EMAIL_IDENTIFIER } from '../users/index.js';
import { ResendVerifyEmailRequest, VerifyEmailRequest } from './schemas.js';
import { sendVerificationMail } from './send.js';
import { redeemToken } from './verify.js';

export const verificationOperations: AnyOperation[] = [
  defineOperation({
    name: 'verify_email',
    kind: 'mutation',
    access: 'public',
    description: 'Completes email verification (or a magic link) with the mailed token; starts a session.',
    input: VerifyEmailRequest,
    output: AuthResponse,
    handler: async (ctx, input) => (await redeemToken(ctx, input.token)).result,
  }),
  defineOperation({
    name: 'resend_verify_email',
    kind: 'mutation',
    access: 'public',
    description:
      'Sends a new verification mail for an unverified address; answers the same whether or not the address has an account.',
    input: ResendVerifyEmailRequest,
    output: MessageResponse,
    handler: async (ctx, input) => {
      const { config } = ctx.kernel;
      const users = ctx.kernel.service('users');
      const email = ctx.kernel.service('email');
      if (input.identifier !== SIGNUP_IDENTIFIER && input.identifier !== UPDATE_EMAIL_IDENTIFIER)
        throw invalidArgument(`invalid identifier: expected one of ${SIGNUP_IDENTIFIER}, ${UPDATE_EMAIL_IDENTIFIER}`);
      const address = users.normalizeEmail(input.email);
      if (!config.bool('enable-email-verification'))
        throw failedPrecondition('email verification is disabled for this instance');
      await email.checkSendLimit(ctx, address);
      const user = await users.findByEmail(address);
      if (user && user.emailVerifiedAt === null) {
        const { record, token } = await users.verifications.request({
          identifier: input.identifier,
          email: address,
          userId: user.id,
        });
        await sendVerificationMail({ url: config.string('url', ''), users, email }, record, token);
      }
      return { message: VERIFICATION_SENT };
    },
  }),
];
