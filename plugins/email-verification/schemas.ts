/** Input types of the email verification operations. */
import { InputObject, OptStr, Str } from '../../core/schema.js';

export const VerifyEmailRequest = InputObject('VerifyEmailRequest', {
  token: Str({ max: 256, min: 1 }),
  state: OptStr({ max: 1024 }),
});

export const ResendVerifyEmailRequest = InputObject('ResendVerifyEmailRequest', {
  email: Str({ max: 320, min: 1 }),
  identifier: Str({ max: 64, min: 1 }),
  state: OptStr({ max: 1024 }),
});
