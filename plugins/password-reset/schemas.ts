/** Password reset types. */
import { InputObject, OptStr, OutputObject, Str, Type } from '../../core/schema.js';

export const ForgotPasswordRequest = InputObject('ForgotPasswordRequest', {
  email: OptStr({ max: 320 }),
  phone_number: OptStr({ max: 32 }),
  state: OptStr({ max: 1024 }),
  redirect_uri: OptStr({ max: 2048 }),
});

export const ForgotPasswordResponse = OutputObject('ForgotPasswordResponse', {
  message: Type.String(),
  should_show_mobile_otp_screen: Type.Optional(Type.Boolean()),
});

export const ResetPasswordRequest = InputObject('ResetPasswordRequest', {
  token: OptStr({ max: 256 }),
  otp: OptStr({ max: 64 }),
  phone_number: OptStr({ max: 32 }),
  password: Str({ max: 1024 }),
  confirm_password: Str({ max: 1024 }),
});
