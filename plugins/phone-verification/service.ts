/** `verify_otp` and `resend_otp` for a phone number waiting for its verification code. */
import { invalidArgument, permissionDenied, unauthenticated } from '../../core/errors.js';
import type { SignInService } from '../sign-in/index.js';
import type { SmsService } from '../sms/index.js';
import type { UserRecord, UsersService } from '../users/index.js';
import { PURPOSE, heldOf, textCode } from './codes.js';
import type { PhoneVerificationService } from './types.js';

export const PHONE_VERIFIED = 'Phone number verified successfully.';
export const CODE_RESENT = 'A new verification code was sent by SMS';
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

/**
 * RFC 8176 §2: `sms`, confirmation by a text to the user's registered number, beside the
 * password (`pwd`) the held sign-in proved.
 */
const AMR = ['pwd', 'sms'];

export interface PhoneDeps {
  users: UsersService;
  signIn: SignInService;
  sms: SmsService;
  organization: string;
}

/** An account whose number waits for its proof: it has one, unverified, and signs in with it. */
function waiting(user: UserRecord | null): user is UserRecord & { phoneNumber: string } {
  return (
    user !== null &&
    user.phoneNumber !== null &&
    user.phoneNumberVerifiedAt === null &&
    user.signupMethods.includes('mobile_basic_auth')
  );
}

export function createPhoneVerification(deps: PhoneDeps): PhoneVerificationService {
  const { users, signIn, organization } = deps;
  return {
    async verify(ctx, input) {
      const readAt = Date.now();
      const user = await users.findByPhone(input.phone_number);
      if (!waiting(user)) return null;
      const codes = deps.sms.codes;
      await codes.checkNotLocked(PURPOSE, user.id);
      if (!(await codes.pending(PURPOSE, user.id))) return null;
      const redeemed = await codes.redeem(PURPOSE, user.id, input.otp);
      if (!redeemed) throw unauthenticated('invalid otp');
      if (user.revokedTimestamp !== null) throw permissionDenied('user access has been revoked');
      const held = heldOf(redeemed.data, user, DEFAULT_SCOPES);
      const { after } = await users.update(user.id, { phone_number_verified: true });
      // The remaining gates (MFA) still apply to the sign-in the code releases, with only the
      // roles the user still holds (an admin may have taken one away meanwhile).
      return signIn.complete(ctx, {
        user: after,
        method: 'mobile_basic_auth',
        roles: held.roles.filter((r) => after.roles.includes(r)),
        scopes: held.scopes,
        amr: AMR,
        message: PHONE_VERIFIED,
        readAt,
      });
    },

    async resend(ctx, input) {
      const user = await users.findByPhone(input.phone_number);
      if (!waiting(user)) return null;
      if (user.revokedTimestamp !== null) throw permissionDenied('user access has been revoked');
      const { sms } = deps;
      const live = await sms.codes.pending(PURPOSE, user.id);
      await textCode(ctx, sms, organization, user, heldOf(live?.data ?? '', user, DEFAULT_SCOPES));
      return { message: CODE_RESENT };
    },

    checkSignupNumber(phone) {
      if (!deps.sms.textable(users.normalizePhone(phone)))
        throw invalidArgument(
          'phone number must be in E.164 form (+ and 8 to 15 digits) to receive its verification code',
        );
    },
  };
}
