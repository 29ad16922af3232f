/**
 * `forgot_password` (POST /v1/forgot_password): mails a reset link to the address when it has an
 * account, and answers the same words, in the same time, when it has none (no enumeration). The
 * answer waits for the account lookup, which both cases do, and for a floor: every call answers
 * FLOOR_MS after it started. The mail itself (a token, a template, an outbox row) is queued only
 * after the answer has been written: two `setImmediate` turns, because transports write a
 * turn's answers in a `setImmediate` of their own (transports/http/held-responses.ts), and with
 * a synchronous database driver work queued beside it would hold the answer back. A failure to
 * queue is logged; the user can ask again.
 */
import type { RequestContext } from '../../core/context.js';
import { failedPrecondition, invalidArgument, permissionDenied } from '../../core/errors.js';
import { checkedRedirect } from '../email/index.js';
import { forgotPasswordByPhone } from './phone-reset.js';

export const FLOOR_MS = 300;
export const RESET_MAIL_SENT = 'Please check your inbox! We have sent a password reset link.';

export interface ForgotPasswordInput {
  email?: string;
  phone_number?: string;
  state?: string;
  redirect_uri?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function forgotPassword(
  ctx: RequestContext,
  input: ForgotPasswordInput,
): Promise<{ message: string; should_show_mobile_otp_screen?: boolean }> {
  const { config } = ctx.kernel;
  const users = ctx.kernel.service('users');
  const email = ctx.kernel.service('email');
  if (input.email === undefined || input.email === '') {
    // The phone variant: a code by SMS (phone-reset.ts).
    if (input.phone_number) return forgotPasswordByPhone(ctx, input.phone_number, FLOOR_MS);
    throw invalidArgument('email or phone_number is required');
  }
  if (!config.bool('enable-basic-authentication', true))
    throw permissionDenied('basic authentication is disabled for this instance');
  const address = users.normalizeEmail(input.email);
  const redirectUri = await checkedRedirect(ctx, input.redirect_uri);
  if (!email.configured) throw failedPrecondition('email sending is not configured on this instance');
  await email.checkSendLimit(ctx, address);
  const started = performance.now();
  const user = await users.findByEmail(address);
  const left = FLOOR_MS - (performance.now() - started);
  if (left > 0) await sleep(left);
  if (user && user.revokedTimestamp === null) {
    const name = [user.givenName, user.familyName].filter(Boolean).join(' ');
    const mail = () =>
      ctx.kernel
        .service('password-reset')
        .issueLink(ctx, user, 'reset', redirectUri)
        .then((link) =>
          email.send({ event: 'forgot_password', to: address, data: { link, ...(name ? { name } : {}) } }),
        )
        .catch((err: unknown) =>
          ctx.kernel.logger.error({ err, userId: user.id }, 'password reset mail could not be queued'),
        );
    setImmediate(() => setImmediate(mail));
  }
  return { message: RESET_MAIL_SENT };
}
