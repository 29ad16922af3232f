/** Admin user management types (CONTRACT.md "Input types/Admin"). */
import { InputObject, Int64, OptBool, OptJsonMap, OptStr, OptStrList, OutputObject, Pagination, PaginationRequest, Str, Type } from '../../core/schema.js';
import { UserSchema } from '../users/schemas.js';

export const ListUsersRequest = InputObject('ListUsersRequest', {
  pagination: Type.Optional(PaginationRequest),
  query: OptStr({ max: 256 }),
});

export const GetUserRequest = InputObject('GetUserRequest', { id: OptStr({ max: 64 }), email: OptStr({ max: 320 }) });

const name = () => OptStr({ max: 256 });
export const UpdateUserRequest = InputObject('UpdateUserRequest', {
  id: Str({ max: 64, min: 1 }),
  email: OptStr({ max: 320 }),
  email_verified: OptBool(),
  given_name: name(),
  family_name: name(),
  middle_name: name(),
  nickname: name(),
  gender: OptStr({ max: 64 }),
  birthdate: OptStr({ max: 64 }),
  phone_number: OptStr({ max: 32 }),
  phone_number_verified: OptBool(),
  picture: OptStr({ max: 2048 }),
  roles: OptStrList({ maxItems: 50, maxLength: 64 }),
  is_multi_factor_auth_enabled: OptBool(),
  reset_mfa: OptBool(),
  app_data: OptJsonMap(),
});

export const DeleteUserRequest = InputObject('DeleteUserRequest', { id: Str({ max: 64, min: 1 }) });
export const UpdateAccessRequest = InputObject('UpdateAccessRequest', { user_id: Str({ max: 64, min: 1 }) });

export const Users = OutputObject('Users', { pagination: Pagination, users: Type.Array(UserSchema) });

/** `_verification_requests` takes `{ pagination }` only (SPEC.md Admin API). */
export const ListVerificationRequestsRequest = InputObject('PaginatedRequest', { pagination: Type.Optional(PaginationRequest) });

const optStr = () => Type.Optional(Type.String());
/** CONTRACT.md `VerificationRequest`; `token` is the stored SHA-256 digest, never the token itself. */
export const VerificationRequest = OutputObject('VerificationRequest', {
  id: Type.String(),
  identifier: optStr(),
  token: optStr(),
  email: optStr(),
  expires: Type.Optional(Int64()),
  created_at: Type.Optional(Int64()),
  updated_at: Type.Optional(Int64()),
  nonce: optStr(),
  redirect_uri: optStr(),
});

export const VerificationRequests = OutputObject('VerificationRequests', { pagination: Pagination, verification_requests: Type.Array(VerificationRequest) });
