/**
 * `forgot_password`: mails a reset link to the address when it has an
 * account, and answers the same words, in the same time, when it has none (no enumeration). The
 * time is evened out by a floor: every call answers no sooner than FLOOR_MS after it started,
 * which is well above what the work for a known address takes (a lookup, a token, a template and
 * an outbox row), so the answer's timing does not depend on the account.
 */
import type { RequestContext } from '../../core/context.js';
import { failedPrecondition, invalidArgument, permissionDenied } from '../../core/errors.js';
import { checkedRedirect } from '../email/index.js';

export const FLOOR_MS = 300;
export const RESET_MAIL_SENT = 'Please check your inbox! We have sent a password reset link.';

export interface ForgotPasswordInput {
  email?: string;
  phone_number?: string;
  state?: string;
  redirect_uri?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function forgotPassword(ctx: RequestContext, input: ForgotPasswordInput) {
  const { config } = ctx.kernel;
  const users = ctx.kernel.service('users');
  const email = ctx.kernel.service('email');
  if (input.email === undefined || input.email === '') {
    // The phone variant (a code by SMS) belongs to the SMS channel.
    if (input.phone_number)
      throw failedPrecondition('password reset by phone number is not available on this instance');
    throw invalidArgument('email is required');
  }
  if (!config.bool('enable-basic-authentication', true))
    throw permissionDenied('basic authentication is disabled for this instance');
  const address = users.normalizeEmail(input.email);
  const redirectUri = await checkedRedirect(ctx, input.redirect_uri);
  if (!email.configured) throw failedPrecondition('email sending is not configured on this instance');
  await email.checkSendLimit(ctx, address);
  const started = performance.now();
  try {
    const user = await users.findByEmail(address);
    if (user && user.revokedTimestamp === null) {
      const link = await ctx.kernel.service('password-reset').issueLink(ctx, user, 'reset', redirectUri);
      const name = [user.givenName, user.familyName].filter(Boolean).join(' ');
      await email.send({ event: 'forgot_password', to: address, data: { link, ...(name ? { name } : {}) } });
    }
  } finally {
    const left = FLOOR_MS - (performance.now() - started);
    if (left > 0) await sleep(left);
  }
  return { message: RESET_MAIL_SENT };
}
