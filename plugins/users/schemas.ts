/** The User type, shared by every plugin that returns users. */
import { Bool, Id, Int64, JsonMap, OptStr, OutputObject, Type } from '../../core/schema.js';

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

/**
 * Input limits of the profile fields, shared by signup, update_profile and the admin's
 * update_user so that one place says how long a name or an address may be. Spread them in the
 * order the input type lists its fields: proto field numbers follow property order.
 */
export const profileInput = {
  email: () => OptStr({ max: 320 }),
  phoneNumber: () => OptStr({ max: 32 }),
  picture: () => OptStr({ max: 2048 }),
  /** given_name, family_name, middle_name, nickname, gender, birthdate, in that order. */
  personal: () => ({
    given_name: OptStr({ max: 256 }),
    family_name: OptStr({ max: 256 }),
    middle_name: OptStr({ max: 256 }),
    nickname: OptStr({ max: 256 }),
    gender: OptStr({ max: 64 }),
    birthdate: OptStr({ max: 64 }),
  }),
};
