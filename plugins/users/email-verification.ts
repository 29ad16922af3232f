/**
 * Asking for proof of an email address (`--enable-email-verification`). The users service stores a
 * verification request (token hashed, see verification.ts) in the same commit as the address it
 * is about: at signup (`create` with `proveEmail`) and when an update leaves a user with a new
 * address nobody marked verified (`update` with `proveNewEmail`). Before that commit, the
 * `email.verification_requested` hook carries the plain token and the commit's unit of work to
 * whoever sends the mail: the email-verification plugin, when it exists, subscribes to it, builds
 * the link to `/verify_email?token=` and adds the mail's outbox row to the unit, so one commit
 * stores the address, its request and its mail, or none of them (a failure to queue the mail
 * fails the write). The token travels on a hook, not on the event bus, because the bus feeds
 * webhooks and audit subscribers, which must never see a usable token.
 */
import type { HookBus } from '../../core/hooks.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { VerificationRecord } from './verification.js';

/** A new account's address (signup), authorizer's identifier for it. */
export const SIGNUP_IDENTIFIER = 'basic_auth_signup';
/** A changed address (update_profile, update_user), authorizer's identifier for it. */
export const UPDATE_EMAIL_IDENTIFIER = 'update_email';

export interface VerificationRequestedPayload {
  identifier: string;
  email: string;
  userId: string;
  /** The plain token: only here, never stored. */
  token: string;
  /** Unix seconds. */
  expiresAt: number;
  redirectUri: string | null;
  /** The user's display name ('' when none): a new user cannot be read before the commit. */
  name: string;
  /** The unit of work of the write that stores the request: the mail's row joins it. */
  unit: UnitOfWork;
}

declare module '../../core/hooks.js' {
  interface HookPayloads {
    /** A verification mail should be sent (the email plugin subscribes). */
    'email.verification_requested': VerificationRequestedPayload;
  }
}

/** Hands a request's plain token to the mail sender, inside the unit of work that stores it. */
export async function handOverVerification(
  hooks: HookBus,
  unit: UnitOfWork,
  record: VerificationRecord,
  token: string,
  name: string,
): Promise<void> {
  await hooks.run('email.verification_requested', {
    identifier: record.identifier,
    email: record.email,
    userId: record.userId ?? '',
    token,
    expiresAt: record.expiresAt,
    redirectUri: record.redirectUri,
    name,
    unit,
  });
}
