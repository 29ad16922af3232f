/** Admin user management types. */
import {
  InputObject,
  Int64,
  OptBool,
  OptJsonMap,
  OptStr,
  OptStrList,
  OutputObject,
  Pagination,
  PaginationRequest,
  Str,
  Type,
} from '../../core/schema.js';
import { profileInput, UserSchema } from '../users/index.js';

export const ListUsersRequest = InputObject('ListUsersRequest', {
  pagination: Type.Optional(PaginationRequest),
  query: OptStr({ max: 256 }),
});

export const GetUserRequest = InputObject('GetUserRequest', { id: OptStr({ max: 64 }), email: OptStr({ max: 320 }) });

export const UpdateUserRequest = InputObject('UpdateUserRequest', {
  id: Str({ max: 64, min: 1 }),
  email: profileInput.email(),
  email_verified: OptBool(),
  ...profileInput.personal(),
  phone_number: profileInput.phoneNumber(),
  phone_number_verified: OptBool(),
  picture: profileInput.picture(),
  roles: OptStrList({ maxItems: 50, maxLength: 64, emptyClears: true }),
  is_multi_factor_auth_enabled: OptBool(),
  reset_mfa: OptBool(),
  app_data: OptJsonMap(),
});

export const DeleteUserRequest = InputObject('DeleteUserRequest', { id: Str({ max: 64, min: 1 }) });
export const UpdateAccessRequest = InputObject('UpdateAccessRequest', { user_id: Str({ max: 64, min: 1 }) });

export const Users = OutputObject('Users', { pagination: Pagination, users: Type.Array(UserSchema) });

/** `_verification_requests` takes `{ pagination }` only. */
export const ListVerificationRequestsRequest = InputObject('PaginatedRequest', {
  pagination: Type.Optional(PaginationRequest),
});

const optStr = () => Type.Optional(Type.String());
/** schema.graphql `VerificationRequest`; `token` is the stored SHA-256 digest, never the token itself. */
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

export const VerificationRequests = OutputObject('VerificationRequests', {
  pagination: Pagination,
  verification_requests: Type.Array(VerificationRequest),
});
