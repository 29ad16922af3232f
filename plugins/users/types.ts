/**
 * The `users` service (declared into core/services.ts): the user records every login method
 * shares. Email and phone are optional and unique when present, enforced here rather than by the
 * database, with the exact error `user with given email already exists`.
 */
import type { Static } from '@sinclair/typebox';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { UserSchema } from './schemas.js';
import type { VerificationRequestsService } from './verification.js';

/** A stored user. Times are Unix seconds (the User type's Int64 fields). */
export interface UserRecord {
  id: string;
  email: string | null;
  emailVerifiedAt: number | null;
  phoneNumber: string | null;
  phoneNumberVerifiedAt: number | null;
  /** The password hash (PHC string); null for accounts without a password. */
  password: string | null;
  /** How the account was created or linked (`basic_auth`, `mobile_basic_auth`, `magic_link_login`, a provider...). */
  signupMethods: string[];
  givenName: string | null;
  familyName: string | null;
  middleName: string | null;
  nickname: string | null;
  preferredUsername: string | null;
  gender: string | null;
  birthdate: string | null;
  picture: string | null;
  roles: string[];
  createdAt: number;
  updatedAt: number;
  revokedTimestamp: number | null;
  isMultiFactorAuthEnabled: boolean | null;
  hasSkippedMfaSetupAt: number | null;
  mfaLockedAt: number | null;
  /** The verified MFA factors (schema.graphql `enrolled_mfa_methods`); absent reads as none. */
  enrolledMfaMethods?: string[];
  appData: Record<string, unknown> | null;
}

/** The writable profile fields (snake_case like the API, so inputs pass straight through). */
export interface ProfilePatch {
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  nickname?: string;
  preferred_username?: string;
  gender?: string;
  birthdate?: string;
  picture?: string;
  app_data?: Record<string, unknown>;
  is_multi_factor_auth_enabled?: boolean;
}

export interface NewUser extends ProfilePatch {
  email?: string;
  phone_number?: string;
  /** Plain text; hashed by the service (off the event loop). */
  password?: string;
  signup_method: string;
  roles: string[];
  email_verified?: boolean;
  phone_number_verified?: boolean;
  /** Set for accounts created revoked (SCIM `active: false`). */
  revoked?: boolean;
}

export interface UserPatch extends ProfilePatch {
  /** Empty string clears the field. */
  email?: string;
  phone_number?: string;
  email_verified?: boolean;
  phone_number_verified?: boolean;
  /** Plain text; hashed by the service. */
  password?: string;
  roles?: string[];
  signup_methods?: string[];
  /** null clears. */
  revoked_timestamp?: number | null;
  has_skipped_mfa_setup_at?: number | null;
  mfa_locked_at?: number | null;
  /** The verified MFA factors, as the MFA plugins record them. */
  enrolled_mfa_methods?: string[];
}

/**
 * Runs inside the unit of work that writes the user, before its commit (core/unit-of-work.ts):
 * events emitted here with `events.emitWithin(unit, ...)` have their outbox rows stored by the
 * same commit as the user. A throw stores nothing and fails the call.
 */
export type WithinUserWrite = (unit: UnitOfWork, user: UserRecord) => Promise<void>;

/**
 * Proof of an address is asked for in the same commit as the write that sets it, and its mail
 * joins that commit too (email-verification.ts).
 */
export interface CreateOptions {
  /** Store a `basic_auth_signup` verification request for the new user's email (when it has one). */
  proveEmail?: { redirectUri?: string };
  /** The new user's events (`user.created`, `user.signup`), stored with it. */
  within?: WithinUserWrite;
}

export interface UpdateOptions {
  /**
   * When the update leaves the user with a different email that is not marked verified, store an
   * `update_email` verification request for it; the result's `proofRequested` says so.
   */
  proveNewEmail?: boolean;
}

export interface UserListQuery {
  page: number;
  limit: number;
  /** Case-insensitive substring on id, email, given_name, family_name, nickname. */
  query?: string;
}

export type UserDto = Static<typeof UserSchema>;

/** Outcome of a password check (SPEC/CONTRACT: five failures lock the account for 15 minutes). */
/** `busy`: five checks of the account were already running here and did not settle in time. */
export type PasswordCheck = 'ok' | 'wrong' | 'locked' | 'busy' | 'no_password';

export interface UsersService {
  /**
   * By id, from a short per-process cache unless `fresh`: an access decision that another
   * process's write may just have changed reads the database.
   */
  findById(id: string, options?: { fresh?: boolean }): Promise<UserRecord | null>;
  /** The user by id when findById's cache holds it now, without a promise; undefined otherwise. */
  cachedById(id: string): UserRecord | undefined;
  /** Emails are compared case-insensitively (stored lowercase). */
  findByEmail(email: string): Promise<UserRecord | null>;
  findByPhone(phone: string): Promise<UserRecord | null>;
  /** Creates a user; `already_exists` on a taken email or phone (also under concurrency). */
  create(input: NewUser, options?: CreateOptions): Promise<UserRecord>;
  /**
   * Updates a user; email and phone changes keep uniqueness. `not_found` when absent. `before` is
   * the user as this update found it under the user's lock: what changed is judged against it,
   * not against a copy read earlier, which another update may have changed since.
   */
  update(
    id: string,
    patch: UserPatch,
    options?: UpdateOptions,
  ): Promise<{ before: UserRecord; after: UserRecord; proofRequested: boolean }>;
  /**
   * Sets `revoked_timestamp` (revoke: the given moment) or clears it, only when that changes the
   * user's state; `changed` says whether this call did it. Of two concurrent revokes one changes
   * it, so the event is sent once. `not_found` when absent.
   */
  setAccess(
    id: string,
    revokedAt: number | null,
    options?: {
      /** Runs only when this call changes the state (its event is stored with the change). */ within?: WithinUserWrite;
    },
  ): Promise<{ user: UserRecord; changed: boolean }>;
  /**
   * Deletes the user and runs the `user.deleted` hook (OTP/verification data of other plugins).
   * `not_found` when absent, also for the loser of two concurrent deletions, which must not
   * report the deletion again.
   */
  delete(
    id: string,
    options?: {
      /** Runs when this call deletes the row, before its commit (its event is stored with the deletion). */
      within?: WithinUserWrite;
    },
  ): Promise<void>;
  list(q: UserListQuery): Promise<{ users: UserRecord[]; total: number }>;
  /** Password check with lockout: 5 failures lock for 15 minutes; success clears the count. */
  /**
   * `unknownAs`: for an account that does not exist (the stand-in user), the identifier that was
   * tried; its failures are counted and locked like an account's, so the lockout's 429 does not
   * tell which accounts exist.
   */
  verifyPassword(user: UserRecord, password: string, unknownAs?: string): Promise<PasswordCheck>;
  /** Throws `invalid_argument` when the password breaks the policy (6-36, strong when enabled). */
  checkPasswordPolicy(password: string): void;
  hashPassword(password: string): Promise<string>;
  /** The User type of the API. */
  toUserDto(user: UserRecord): UserDto;
  /** Normalizes an email (trim, lowercase); `invalid_argument` when malformed. */
  normalizeEmail(email: string): string;
  /** Normalizes a phone number; `invalid_argument` when malformed. */
  normalizePhone(phone: string): string;
  /** Pending email verifications (their tokens stored hashed); removed with the user. */
  readonly verifications: VerificationRequestsService;
  /** The roles allowed by `--roles`, `--default-roles`, `--protected-roles`. */
  readonly roles: { allowed: string[]; defaults: string[]; protected: string[] };
}

declare module '../../core/services.js' {
  interface Services {
    users: UsersService;
  }
}

declare module '../../core/hooks.js' {
  interface HookPayloads {
    /** Before a user row is deleted: plugins remove their data of that user (OTPs, verifications). */
    'user.deleted': { user: UserRecord };
  }
}
