/** Inputs of the MFA operations. */
import { InputObject, OptBool, OptStr, Str } from '../../core/schema.js';

const email = () => OptStr({ max: 320 });
const phone = () => OptStr({ max: 32 });
const state = () => OptStr({ max: 1024 });

export const VerifyOTPRequest = InputObject('VerifyOTPRequest', {
  email: email(),
  phone_number: phone(),
  otp: Str({ min: 1, max: 64 }),
  is_totp: OptBool(),
  state: state(),
});

export const SkipMfaSetupRequest = InputObject('SkipMfaSetupRequest', {
  email: email(),
  phone_number: phone(),
  state: state(),
});

export const LockMfaRequest = InputObject('LockMfaRequest', { email: email(), phone_number: phone() });

/** `email_otp_mfa_setup`, `sms_otp_mfa_setup` and `totp_mfa_setup`. */
export const OtpMfaSetupRequest = InputObject('OtpMfaSetupRequest', { email: email(), phone_number: phone() });

export const ResendOTPRequest = InputObject('ResendOTPRequest', {
  email: email(),
  phone_number: phone(),
  state: state(),
});
