/**
 * Asking for proof of an email address (`--enable-email-verification`). The users service stores a
 * verification request (token hashed, see verification.ts) in the same commit as the address it
 * is about: at signup (`create` with `proveEmail`) and when an update leaves a user with a new
 * address nobody marked verified (`update` with `proveNewEmail`). Once that commit is done, the
 * `email.verification_requested` hook carries the plain token to whoever sends the mail: the email
 * plugin, when it exists, subscribes to it and builds the link to `/verify_email?token=` (SPEC.md
 * "Endpoints"). The token travels on a hook, not on the event bus, because the bus feeds webhooks
 * and audit subscribers, which must never see a usable token.
 */
import type { HookBus } from '../../core/hooks.js';
import type { Logger } from '../../core/logger.js';
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
}

declare module '../../core/hooks.js' {
  interface HookPayloads {
    /** A verification mail should be sent (the email plugin subscribes). */
    'email.verification_requested': VerificationRequestedPayload;
  }
}

/** Hands a stored request's plain token to the mail sender (after the commit that stored it). */
export async function handOverVerification(
  hooks: HookBus,
  logger: Logger,
  record: VerificationRecord,
  token: string,
): Promise<void> {
  try {
    await hooks.run('email.verification_requested', {
      identifier: record.identifier,
      email: record.email,
      userId: record.userId ?? '',
      token,
      expiresAt: record.expiresAt,
      redirectUri: record.redirectUri,
    });
  } catch (err) {
    // The account and its request exist; a mail that could not be handed over can be asked for
    // again (resend_verify_email), so the call that set the address still succeeds.
    logger.warn({ err, userId: record.userId }, 'verification mail could not be queued');
  }
}
