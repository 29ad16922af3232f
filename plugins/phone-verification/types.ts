/** The `phone-verification` service: the texted code that proves a phone account's number. */
import type { RequestContext } from '../../core/context.js';
import type { AuthResult } from '../sign-in/index.js';

export interface PhoneVerificationService {
  /**
   * `verify_otp` with a `phone_number`: completes the number's pending verification (the number
   * counts as verified, then the sign-in goes on through the remaining gates), or answers null when
   * the number has no code of this flow, so the MFA codes get their turn. A wrong code is
   * `unauthenticated` and counts towards the lock.
   */
  verify(ctx: RequestContext, input: { phone_number: string; otp: string }): Promise<AuthResult | null>;
  /**
   * `resend_otp` with a `phone_number`: texts a new code for an unverified phone account (the
   * previous one stops working), or answers null when the number is not waiting for one.
   */
  resend(ctx: RequestContext, input: { phone_number: string }): Promise<{ message: string } | null>;
  /** Refuses a signup number that no text can reach (not E.164), before the account is written. */
  checkSignupNumber(phone: string): void;
}

declare module '../../core/services.js' {
  interface Services {
    'phone-verification': PhoneVerificationService;
  }
}
