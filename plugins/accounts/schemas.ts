/** Input and output types of the account operations. */
import {
  Bool,
  InputObject,
  Int64,
  JsonMap,
  OptBool,
  OptJsonMap,
  OptStr,
  OptStrList,
  OutputObject,
  Str,
  Type,
} from '../../core/schema.js';
import { profileInput, UserSchema } from '../users/index.js';
import { MAX_TOKEN_LENGTH } from '../tokens/index.js';

const password = () => Str({ max: 1024 });
const roles = () => OptStrList({ maxItems: 50, maxLength: 64 });
const scope = () => OptStrList({ maxItems: 50, maxLength: 128 });

export const FgaRelationInput = InputObject('FgaRelationInput', {
  relation: Str({ max: 256, min: 1 }),
  object: Str({ max: 512, min: 1 }),
});
const relations = () => Type.Optional(Type.Array(FgaRelationInput, { maxItems: 100 }));

export const SignUpRequest = InputObject('SignUpRequest', {
  email: profileInput.email(),
  ...profileInput.personal(),
  phone_number: profileInput.phoneNumber(),
  picture: profileInput.picture(),
  password: password(),
  confirm_password: password(),
  roles: roles(),
  scope: scope(),
  redirect_uri: OptStr({ max: 2048 }),
  is_multi_factor_auth_enabled: OptBool(),
  state: OptStr({ max: 1024 }),
  app_data: OptJsonMap(),
});

export const LoginRequest = InputObject('LoginRequest', {
  email: OptStr({ max: 320 }),
  phone_number: OptStr({ max: 32 }),
  password: password(),
  roles: roles(),
  scope: scope(),
  state: OptStr({ max: 1024 }),
});

export const UpdateProfileRequest = InputObject('UpdateProfileRequest', {
  old_password: OptStr({ max: 1024 }),
  new_password: OptStr({ max: 1024 }),
  confirm_new_password: OptStr({ max: 1024 }),
  email: profileInput.email(),
  ...profileInput.personal(),
  phone_number: profileInput.phoneNumber(),
  picture: profileInput.picture(),
  is_multi_factor_auth_enabled: OptBool(),
  app_data: OptJsonMap(),
});

export const SessionQueryRequest = InputObject('SessionQueryRequest', {
  roles: roles(),
  scope: scope(),
  state: OptStr({ max: 1024 }),
  required_relations: relations(),
});

export const ValidateJWTTokenRequest = InputObject('ValidateJWTTokenRequest', {
  token_type: Type.Union([Type.Literal('access_token'), Type.Literal('id_token'), Type.Literal('refresh_token')]),
  token: Str({ max: MAX_TOKEN_LENGTH, min: 1 }),
  roles: roles(),
  required_relations: relations(),
});

export const ValidateSessionRequest = InputObject('ValidateSessionRequest', {
  cookie: Str({ max: 1024, min: 1 }),
  roles: roles(),
  required_relations: relations(),
});

export const OAuthRevokeRequest = InputObject('OAuthRevokeRequest', {
  refresh_token: Str({ max: MAX_TOKEN_LENGTH, min: 1 }),
});

const optBool = () => Type.Optional(Bool());
export const AuthResponse = OutputObject('AuthResponse', {
  message: Type.String(),
  should_show_email_otp_screen: optBool(),
  should_show_mobile_otp_screen: optBool(),
  should_show_totp_screen: optBool(),
  should_offer_webauthn_mfa_verify: optBool(),
  should_offer_webauthn_mfa_setup: optBool(),
  should_offer_email_otp_mfa_setup: optBool(),
  should_offer_sms_otp_mfa_setup: optBool(),
  access_token: Type.Optional(Type.String()),
  id_token: Type.Optional(Type.String()),
  refresh_token: Type.Optional(Type.String()),
  expires_in: Type.Optional(Int64()),
  user: Type.Optional(UserSchema),
  authenticator_scanner_image: Type.Optional(Type.String()),
  authenticator_secret: Type.Optional(Type.String()),
  authenticator_recovery_codes: Type.Optional(Type.Array(Type.String())),
});

export const ValidateJWTTokenResponse = OutputObject('ValidateJWTTokenResponse', {
  is_valid: Bool(),
  claims: Type.Optional(JsonMap()),
});

export const ValidateSessionResponse = OutputObject('ValidateSessionResponse', {
  is_valid: Bool(),
  user: Type.Optional(UserSchema),
});
