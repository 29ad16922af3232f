/**
 * The sign-in service's public types: every login path (password, magic link, email
 * verification, social, organization SSO, passkey) ends a first factor with `complete`, so the
 * gates (the MFA gate) run in one place instead of once per path.
 */
import type { RequestContext } from '../../core/context.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { SessionRecord } from '../sessions/index.js';
import type { UserDto, UserRecord } from '../users/index.js';

/** A user whose first factor has just been proven, and what the session is to hold. */
export interface SignInAttempt {
  user: UserRecord;
  /** The `auth_recipe` of events and `signup_methods` entry: `basic_auth`, `magic_link_login`, `google`, ... */
  method: string;
  roles: string[];
  scopes: string[];
  /** RFC 8176 authentication method references of the proven factors (`pwd`, `otp`, `hwk`, ...). */
  amr: string[];
  /** The AuthResponse message on success. */
  message: string;
  /** When the user record was read: a revoke of every session after this moment ends the new one too. */
  readAt?: number;
  /**
   * Runs once the session has started and its tokens are issued, in a unit of work committed
   * before they are answered: the login's event (`events.emitWithin(unit, 'user.login', ...)`)
   * is stored by that commit. Its failure ends the session and fails the sign-in, so no tokens
   * are answered without their event. Not run when a gate withholds the session.
   */
  within?: (unit: UnitOfWork, user: UserDto) => Promise<void>;
}

/**
 * What a sign-in answers. With tokens when a session was started; without them when a gate
 * withheld the session (then `should_show_*` / `should_offer_*` say what the client shows next).
 */
export interface AuthResult {
  message: string;
  access_token?: string;
  id_token?: string;
  refresh_token?: string;
  expires_in?: number;
  user?: UserDto;
  should_show_email_otp_screen?: boolean;
  should_show_mobile_otp_screen?: boolean;
  should_show_totp_screen?: boolean;
  should_offer_webauthn_mfa_verify?: boolean;
  should_offer_webauthn_mfa_setup?: boolean;
  should_offer_email_otp_mfa_setup?: boolean;
  should_offer_sms_otp_mfa_setup?: boolean;
  authenticator_scanner_image?: string;
  authenticator_secret?: string;
  authenticator_recovery_codes?: string[];
}

/** An AuthResult with a started session's tokens. */
export type IssuedAuthResult = AuthResult & {
  access_token: string;
  id_token: string;
  expires_in: number;
  user: UserDto;
};

/**
 * A gate sees every completed first factor before a session exists. It answers the response to
 * send instead of a session (no tokens; it may set cookies on `ctx`, such as the `mfa` cookie),
 * or undefined to let the sign-in through. Gates run in registration order; the first answer wins.
 */
export type SignInGate = (ctx: RequestContext, attempt: SignInAttempt) => Promise<AuthResult | undefined>;

export interface SignInService {
  /** Runs the gates, then starts the session, sets the app cookies and issues the tokens. */
  complete(ctx: RequestContext, attempt: SignInAttempt): Promise<AuthResult>;
  /** Starts the session without the gates: for the step that satisfies a gate (an MFA code). */
  startSession(ctx: RequestContext, attempt: SignInAttempt): Promise<IssuedAuthResult>;
  /** Issues tokens for an existing session and sets its cookies (a refresh). */
  respond(ctx: RequestContext, user: UserRecord, session: SessionRecord, message: string): Promise<IssuedAuthResult>;
  /**
   * Registers a gate (at setup). `first`: ahead of every gate registered without it, whatever the
   * boot order; gates that prove the account itself (phone verification) run before those that ask
   * for a second factor, whose completion starts the session without the gates.
   */
  addGate(gate: SignInGate, options?: { first?: boolean }): void;
}
