/**
 * The `mfa` service's public types: the sign-in gate's pending attempts, the factor registry the
 * factor plugins (totp, mfa-otp, webauthn) join, and the stored factor enrollments they share.
 */
import type { RequestContext } from '../../core/context.js';
import type { AuthResult, IssuedAuthResult, SignInAttempt } from '../sign-in/index.js';
import type { UserRecord } from '../users/index.js';

/** The values of a user's `enrolled_mfa_methods`. */
export type MfaMethod = 'totp' | 'webauthn' | 'email_otp' | 'sms_otp';
export const MFA_METHODS: readonly MfaMethod[] = ['totp', 'webauthn', 'email_otp', 'sms_otp'];

/**
 * The gate's states (docs/mfa.md): `verify` a verified factor exists; `enroll` `--enforce-mfa`
 * and none set up; `offer` the user turned MFA on, has none and has not skipped the offer.
 */
export type PendingState = 'verify' | 'enroll' | 'offer';

/** A sign-in whose session the gate withheld, kept in the memory store under the `mfa` cookie. */
export interface PendingSignIn {
  /** The memory-store key (a digest of the cookie value, never the value itself). */
  key: string;
  state: PendingState;
  userId: string;
  method: string;
  roles: string[];
  scopes: string[];
  amr: string[];
  message: string;
  readAt?: number;
  expiresAt: number;
}

/** What a factor plugin tells the gate. */
export interface MfaFactor {
  method: MfaMethod;
  /** Whether the user has a verified enrollment of this factor. */
  enrolled(user: UserRecord): Promise<boolean>;
  /** Whether the factor can be set up by this user (an email for email OTP, a phone for SMS). */
  offerable(user: UserRecord): boolean;
  /** Runs when the gate withholds a session in `verify` for a user enrolled in it (sends a code). */
  challenge?(ctx: RequestContext, user: UserRecord): Promise<void>;
  /** Removes every enrollment and credential of the user (admin `reset_mfa`, deletion). */
  reset(userId: string): Promise<void>;
}

/**
 * A `verify_otp` checker: answers the factor the code proved (the code is spent then), or throws
 * (a wrong code counts towards the factor's lockout).
 */
export type OtpVerifier = (ctx: RequestContext, user: UserRecord, otp: string, hint: OtpHint) => Promise<MfaMethod>;
export interface OtpHint {
  email?: string;
  phone_number?: string;
  /** Only verified enrollments count (a pending `verify` sign-in), not one being set up. */
  enrolledOnly?: boolean;
}

/** A stored enrollment of an OTP-style factor (TOTP secret, email or SMS channel). */
export interface FactorRecord {
  id: string;
  userId: string;
  method: MfaMethod;
  verified: boolean;
  /** Sealed by the keys service with `--encryption-key`; null for email and SMS OTP. */
  secret: string | null;
  /** The last TOTP time step accepted (RFC 6238 §5.2: a code is not accepted twice). */
  lastTimeStep: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface FactorStore {
  find(userId: string, method: MfaMethod): Promise<FactorRecord | null>;
  /** Creates or replaces the user's unverified enrollment of `method`; a verified one is kept. */
  begin(userId: string, method: MfaMethod, secret: string | null): Promise<FactorRecord>;
  /** Marks it verified; with `timeStep`, only when the step is later than the last accepted (atomic). */
  accept(id: string, timeStep?: number): Promise<boolean>;
  remove(userId: string, method?: MfaMethod): Promise<void>;
}

export interface MfaService {
  /** Factor plugins join at setup. */
  addFactor(factor: MfaFactor): void;
  /** Verifies `verify_otp` codes: `totp` for `is_totp`, `otp` for email and SMS codes. */
  addOtpVerifier(kind: 'totp' | 'otp', verifier: OtpVerifier): void;
  readonly factors: FactorStore;
  /** The pending sign-in the request's `mfa` cookie names, or null. */
  pending(ctx: RequestContext): Promise<PendingSignIn | null>;
  /**
   * Ends a pending sign-in with a proven second factor: starts the session (no gates) with the
   * kept attempt plus `amr` (RFC 8176; null: no second factor was proven, as after a skipped
   * offer), clears the `mfa` cookie. Refused when the user lost access meanwhile.
   */
  complete(ctx: RequestContext, pending: PendingSignIn, amr: string | null, message: string): Promise<IssuedAuthResult>;
  /**
   * Who is setting up a factor: the authenticated caller, or the user of a pending `enroll` /
   * `offer` sign-in (a first-time offer needs no session). `email` / `phone_number`, when given, must
   * be that user's.
   */
  enrollee(ctx: RequestContext, hint: OtpHint): Promise<{ user: UserRecord; pending: PendingSignIn | null }>;
  /** Refuses with `resource_exhausted` while five wrong codes lock the factor (for 15 minutes). */
  checkNotLocked(userId: string, method: MfaMethod): Promise<void>;
  /** Counts a wrong code; the fifth locks the factor. */
  recordFailure(userId: string, method: MfaMethod): Promise<void>;
  clearFailures(userId: string, method: MfaMethod): Promise<void>;
  /** Writes the user's verified factors to `enrolled_mfa_methods` (and turns MFA on when any). */
  refreshEnrolled(userId: string): Promise<UserRecord | null>;
  /**
   * Removes every factor and credential of the user and the factor lockouts (admin `reset_mfa`,
   * deletion); `refresh` then empties `enrolled_mfa_methods`.
   */
  resetUser(userId: string, refresh: boolean): Promise<void>;
  /** Whether a method's plugin is part of the build and on. */
  isOn(method: MfaMethod): boolean;
  /** The `verify_otp` checker of a kind, when its factor plugin is in the build. */
  verifier(kind: 'totp' | 'otp'): OtpVerifier | undefined;
  /** The user, read fresh; refused when revoked, deleted or MFA-locked. */
  liveUser(id: string): Promise<UserRecord>;
  /** Refuses an `email` / `phone_number` that is not the user's own. */
  checkHint(user: UserRecord, hint: OtpHint): void;
  /** Gives a pending sign-in and its `mfa` cookie a fresh lifetime (a code was sent again). */
  renew(ctx: RequestContext, pending: PendingSignIn): Promise<void>;
  /** Ends a pending sign-in without a session (lock_mfa); false when it was already used. */
  discard(ctx: RequestContext, pending: PendingSignIn): Promise<boolean>;
  /** The gate's answer for a user; exported for the hosted page and tests. */
  readonly gate: (ctx: RequestContext, attempt: SignInAttempt) => Promise<AuthResult | undefined>;
}
