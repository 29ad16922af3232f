/** The User type (CONTRACT.md "Output types"), shared by every plugin that returns users. */
import { Bool, Id, Int64, JsonMap, OutputObject, Type } from '../../core/schema.js';

const optStr = () => Type.Optional(Type.String());
const optInt = () => Type.Optional(Int64());

export const UserSchema = OutputObject('User', {
  id: Id(),
  email: optStr(),
  email_verified: Bool(),
  signup_methods: Type.String(),
  given_name: optStr(),
  family_name: optStr(),
  middle_name: optStr(),
  nickname: optStr(),
  preferred_username: optStr(),
  gender: optStr(),
  birthdate: optStr(),
  phone_number: optStr(),
  phone_number_verified: Bool(),
  picture: optStr(),
  roles: Type.Array(Type.String()),
  created_at: optInt(),
  updated_at: optInt(),
  revoked_timestamp: optInt(),
  is_multi_factor_auth_enabled: Type.Optional(Bool()),
  has_skipped_mfa_setup_at: optInt(),
  mfa_locked_at: optInt(),
  enrolled_mfa_methods: Type.Array(Type.String()),
  app_data: Type.Optional(JsonMap()),
});
