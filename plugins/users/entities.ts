/**
 * The user table. Email and phone carry plain (non-unique) indexes for lookups: uniqueness is the
 * application's job, so one rule holds on every database type.
 * Times are Unix seconds; lists are comma-joined text and `app_data` JSON text, which read the
 * same on every driver.
 */
import { defineEntity } from '@mikro-orm/core';

export const USERS_TABLE = 'latchkey_users';
/** A user's roles are stored joined by commas in one column of this many characters. */
export const ROLES_COLUMN_LENGTH = 1024;

export interface UserRow {
  id: string;
  email: string | null;
  emailVerifiedAt: number | null;
  phoneNumber: string | null;
  phoneNumberVerifiedAt: number | null;
  password: string | null;
  signupMethods: string;
  givenName: string | null;
  familyName: string | null;
  middleName: string | null;
  nickname: string | null;
  preferredUsername: string | null;
  gender: string | null;
  birthdate: string | null;
  picture: string | null;
  roles: string;
  createdAt: number;
  updatedAt: number;
  revokedTimestamp: number | null;
  isMultiFactorAuthEnabled: boolean | null;
  hasSkippedMfaSetupAt: number | null;
  mfaLockedAt: number | null;
  /** The verified MFA factors (`totp`, `webauthn`, `email_otp`, `sms_otp`), comma-joined; kept by the MFA plugins. */
  enrolledMfaMethods: string;
  appData: string | null;
  /** Lowercase id, email, given, family and nick names: the admin `query` searches this. */
  search: string;
}

export const UserEntity = defineEntity({
  name: 'LatchkeyUser',
  tableName: USERS_TABLE,
  properties: (p) => ({
    id: p.string().primary().length(64),
    email: p.string().length(320).nullable().index(),
    emailVerifiedAt: p.bigint('number').nullable(),
    phoneNumber: p.string().length(32).nullable().index(),
    phoneNumberVerifiedAt: p.bigint('number').nullable(),
    password: p.text().nullable(),
    signupMethods: p.string().length(512).default(''),
    givenName: p.string().length(256).nullable(),
    familyName: p.string().length(256).nullable(),
    middleName: p.string().length(256).nullable(),
    nickname: p.string().length(256).nullable(),
    preferredUsername: p.string().length(256).nullable(),
    gender: p.string().length(64).nullable(),
    birthdate: p.string().length(64).nullable(),
    picture: p.text().nullable(),
    roles: p.string().length(ROLES_COLUMN_LENGTH).default(''),
    createdAt: p.bigint('number'),
    updatedAt: p.bigint('number'),
    revokedTimestamp: p.bigint('number').nullable(),
    isMultiFactorAuthEnabled: p.boolean().nullable(),
    hasSkippedMfaSetupAt: p.bigint('number').nullable(),
    mfaLockedAt: p.bigint('number').nullable(),
    enrolledMfaMethods: p.string().length(128).default(''),
    appData: p.text().nullable(),
    search: p.text(),
  }),
});
