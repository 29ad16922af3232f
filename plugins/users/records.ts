/** A user's row as the application sees it (UserRecord), its search text and its API shape (UserDto). */
import { MAX_TEXT_BYTES } from '../../core/storage.js';
import { ServiceError } from '../../core/errors.js';
import type { UserRow } from './entities.js';
import { splitList } from './policy.js';
import type { UserDto, UserRecord } from './types.js';

/**
 * `app_data` as stored: JSON text of at most MAX_APP_DATA_BYTES, what its TEXT column holds
 * everywhere (more is a database error on MySQL and MariaDB). Every login and profile answer
 * carries it, so an unbounded value would go out with each login.
 */
export const MAX_APP_DATA_BYTES = MAX_TEXT_BYTES;

/** The profile fields a patch may set, by their API name, with the column each is kept in. */
export const PROFILE_COLUMNS = {
  given_name: 'givenName',
  family_name: 'familyName',
  middle_name: 'middleName',
  nickname: 'nickname',
  preferred_username: 'preferredUsername',
  gender: 'gender',
  birthdate: 'birthdate',
  picture: 'picture',
} as const;

export const now = (): number => Math.floor(Date.now() / 1000);

/** BIGINT columns may arrive as strings (PostgreSQL, MySQL) when read without hydration. */
const numOrNull = (v: number | string | null | undefined): number | null =>
  v === null || v === undefined ? null : Number(v);

export function toRecord(row: UserRow): UserRecord {
  let appData: Record<string, unknown> | null = null;
  if (row.appData) {
    try {
      appData = JSON.parse(row.appData) as Record<string, unknown>;
    } catch {
      appData = null;
    }
  }
  return {
    id: row.id,
    email: row.email,
    emailVerifiedAt: numOrNull(row.emailVerifiedAt),
    phoneNumber: row.phoneNumber,
    phoneNumberVerifiedAt: numOrNull(row.phoneNumberVerifiedAt),
    password: row.password,
    signupMethods: splitList(row.signupMethods),
    givenName: row.givenName,
    familyName: row.familyName,
    middleName: row.middleName,
    nickname: row.nickname,
    preferredUsername: row.preferredUsername,
    gender: row.gender,
    birthdate: row.birthdate,
    picture: row.picture,
    roles: splitList(row.roles),
    createdAt: Number(row.createdAt),
    updatedAt: Number(row.updatedAt),
    revokedTimestamp: numOrNull(row.revokedTimestamp),
    // Rows read without hydration carry the driver's value (0/1 on SQLite and MySQL).
    isMultiFactorAuthEnabled:
      row.isMultiFactorAuthEnabled === null || row.isMultiFactorAuthEnabled === undefined
        ? null
        : Boolean(row.isMultiFactorAuthEnabled),
    hasSkippedMfaSetupAt: numOrNull(row.hasSkippedMfaSetupAt),
    mfaLockedAt: numOrNull(row.mfaLockedAt),
    enrolledMfaMethods: splitList(row.enrolledMfaMethods ?? ''),
    appData,
  };
}

/** The lowercased text a users query searches: the fields joined by newlines. */
export function searchText(row: Pick<UserRow, 'id' | 'email' | 'givenName' | 'familyName' | 'nickname'>): string {
  return [row.id, row.email, row.givenName, row.familyName, row.nickname]
    .filter((v): v is string => !!v)
    .join('\n')
    .toLowerCase();
}

export function appDataText(value: Record<string, unknown>): string {
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) > MAX_APP_DATA_BYTES)
    throw new ServiceError('invalid_argument', `invalid app_data: at most ${MAX_APP_DATA_BYTES} bytes as JSON`);
  return text;
}

export function toUserDto(user: UserRecord): UserDto {
  const dto: UserDto = {
    id: user.id,
    email_verified: user.emailVerifiedAt !== null,
    signup_methods: user.signupMethods.join(','),
    phone_number_verified: user.phoneNumberVerifiedAt !== null,
    roles: user.roles,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
    enrolled_mfa_methods: user.enrolledMfaMethods ?? [],
  };
  if (user.email !== null) dto.email = user.email;
  if (user.phoneNumber !== null) dto.phone_number = user.phoneNumber;
  if (user.givenName !== null) dto.given_name = user.givenName;
  if (user.familyName !== null) dto.family_name = user.familyName;
  if (user.middleName !== null) dto.middle_name = user.middleName;
  if (user.nickname !== null) dto.nickname = user.nickname;
  if (user.preferredUsername !== null) dto.preferred_username = user.preferredUsername;
  if (user.gender !== null) dto.gender = user.gender;
  if (user.birthdate !== null) dto.birthdate = user.birthdate;
  if (user.picture !== null) dto.picture = user.picture;
  if (user.revokedTimestamp !== null) dto.revoked_timestamp = user.revokedTimestamp;
  if (user.isMultiFactorAuthEnabled !== null) dto.is_multi_factor_auth_enabled = user.isMultiFactorAuthEnabled;
  if (user.hasSkippedMfaSetupAt !== null) dto.has_skipped_mfa_setup_at = user.hasSkippedMfaSetupAt;
  if (user.mfaLockedAt !== null) dto.mfa_locked_at = user.mfaLockedAt;
  if (user.appData !== null) dto.app_data = user.appData;
  return dto;
}
