/**
 * The sign-in gate of `--enable-phone-verification`: a phone-number sign-in (signup or login with
 * `phone_number` and password) of an account whose number is not verified gets no session; a code
 * is texted to the number and the answer asks for it (`should_show_mobile_otp_screen`), which
 * `verify_otp` with the `phone_number` then takes. The gate runs ahead of the MFA gate.
 */
import type { RequestContext } from '../../core/context.js';
import type { AuthResult, SignInAttempt } from '../sign-in/index.js';
import type { SmsService } from '../sms/index.js';
import { textCode } from './codes.js';

/** What a phone sign-in waiting for its code answers. */
export const CODE_SENT = 'Please check the OTP sent to your phone number';

export function createPhoneGate(sms: SmsService, organization: string) {
  return async (ctx: RequestContext, attempt: SignInAttempt): Promise<AuthResult | undefined> => {
    const { user } = attempt;
    if (attempt.method !== 'mobile_basic_auth' || user.phoneNumber === null || user.phoneNumberVerifiedAt !== null)
      return undefined;
    await textCode(
      ctx,
      sms,
      organization,
      { ...user, phoneNumber: user.phoneNumber },
      {
        roles: attempt.roles,
        scopes: attempt.scopes,
      },
    );
    return { message: CODE_SENT, should_show_mobile_otp_screen: true };
  };
}
