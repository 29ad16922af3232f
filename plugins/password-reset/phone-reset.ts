/**
 * Password reset by a texted code, for phone accounts (`--enable-mobile-basic-authentication`):
 * `forgot_password` with a `phone_number` texts a code and answers the same, in the same time,
 * whether or not the number has an account (as the mailed variant does), and `reset_password`
 * with the `otp` and the `phone_number` sets the password, counts the number as verified (the
 * code reached it) and ends every session and refresh token of the user. Codes come from the sms
 * service's code store, kept per number: six digits, single use, ten minutes, a sealed digest;
 * five wrong codes for a number lock it for 15 minutes, known or not. Texts count against the
 * per-number and per-IP limits of the sms service.
 */
import type { RequestContext } from '../../core/context.js';
import { failedPrecondition, invalidArgument, permissionDenied } from '../../core/errors.js';
import type { SmsService } from '../sms/index.js';

export const RESET_CODE_SENT = 'Please enter the OTP sent to your phone number and change your password.';
export const CODE_PURPOSE = 'password-reset';
export const CODE_TTL_MS = 10 * 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const invalidCode = () => invalidArgument('invalid or expired otp');

/** The sms service when texts can be sent and phone accounts sign in: the checks both operations share. */
function smsFor(ctx: RequestContext): SmsService {
  const sms = ctx.kernel.hasService('sms') ? ctx.kernel.service('sms') : undefined;
  if (!sms?.configured) throw failedPrecondition('SMS is not configured on this instance');
  if (!ctx.kernel.config.bool('enable-mobile-basic-authentication'))
    throw permissionDenied('mobile basic authentication is disabled for this instance');
  return sms;
}

export async function forgotPasswordByPhone(ctx: RequestContext, phoneNumber: string, floorMs: number) {
  const sms = smsFor(ctx);
  const users = ctx.kernel.service('users');
  const phone = users.normalizePhone(phoneNumber);
  if (!sms.textable(phone)) throw invalidArgument('phone number must be in E.164 form (+ and 8 to 15 digits)');
  await sms.checkSendLimit(ctx, phone);
  const started = performance.now();
  const user = await users.findByPhone(phone);
  const left = floorMs - (performance.now() - started);
  if (left > 0) await sleep(left);
  if (user && user.revokedTimestamp === null) {
    const organization = ctx.kernel.config.string('organization-name', 'Latchkey');
    // Queued after the answer is written, as the mail is (forgot-password.ts), so that the
    // answer takes the same time whether or not the number has an account; the sms outbox's
    // worker texts it. A failure to queue is logged; the user can ask again.
    const text = () => {
      // Taken before the code is issued: the text's stated end of use is never after the code's.
      const expiresAt = Date.now() + CODE_TTL_MS;
      return sms.codes
        .issue(CODE_PURPOSE, phone, CODE_TTL_MS, user.id)
        .then((code) => sms.send(phone, `${code} is your ${organization} password reset code.`, { expiresAt }))
        .catch((err: unknown) =>
          ctx.kernel.logger.error({ err, userId: user.id }, 'password reset code could not be texted'),
        );
    };
    setImmediate(() => setImmediate(text));
  }
  return { message: RESET_CODE_SENT, should_show_mobile_otp_screen: true };
}

export interface CodeResetInput {
  otp?: string;
  phone_number?: string;
  password: string;
  confirm_password: string;
}

export async function resetPasswordByCode(ctx: RequestContext, input: CodeResetInput): Promise<void> {
  if (!input.otp || !input.phone_number) throw invalidArgument('otp and phone_number are required');
  const sms = smsFor(ctx);
  const users = ctx.kernel.service('users');
  if (input.password !== input.confirm_password) throw invalidArgument('password and confirm password does not match');
  // Checked before the code is taken: a refused password leaves the code usable.
  users.checkPasswordPolicy(input.password);
  const phone = users.normalizePhone(input.phone_number);
  const redeemed = await sms.codes.redeem(CODE_PURPOSE, phone, input.otp);
  if (!redeemed) throw invalidCode();
  const user = await users.findById(redeemed.data, { fresh: true });
  if (!user || user.phoneNumber !== phone) throw invalidCode();
  if (user.revokedTimestamp !== null) throw permissionDenied('user access has been revoked');
  await users.update(user.id, { password: input.password, phone_number_verified: true });
  await ctx.kernel.service('sessions').revokeAll(user.id);
  await ctx.kernel.service('tokens').forgetUser(user.id);
}
