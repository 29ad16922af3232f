/**
 * Asking for proof of an email address (`--enable-email-verification`): a verification request is
 * stored (token hashed, see verification.ts) and the `email.verification_requested` hook carries
 * the plain token to whoever sends the mail: the email plugin, when it exists, subscribes to it and
 * builds the link to `/verify_email?token=` (SPEC.md "Endpoints"). The token travels on a hook, not
 * on the event bus, because the bus feeds webhooks and audit subscribers, which must never see a
 * usable token. It lives with the users plugin so that every plugin that sets an address (signup
 * and update_profile in accounts, update_user in admin-users) asks the same way.
 */
import type { RequestContext } from '../../core/context.js';
import type { UserRecord } from './types.js';

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

export async function requestEmailVerification(
  ctx: RequestContext,
  userId: string,
  email: string,
  redirectUri: string | undefined,
  identifier: string = SIGNUP_IDENTIFIER,
): Promise<void> {
  const { record, token } = await ctx.kernel.service('users').verifications.create({
    identifier,
    email,
    userId,
    ...(redirectUri ? { redirectUri } : {}),
  });
  try {
    await ctx.kernel.hooks.run('email.verification_requested', {
      identifier: record.identifier,
      email,
      userId,
      token,
      expiresAt: record.expiresAt,
      redirectUri: record.redirectUri,
    });
  } catch (err) {
    // The account and its request exist; a mail that could not be handed over can be asked for
    // again (resend_verify_email), so the call that set the address still succeeds.
    ctx.kernel.logger.warn({ err, userId }, 'verification mail could not be queued');
  }
}

/**
 * After an update that may have changed the address (update_profile, update_user): with
 * `--enable-email-verification` a new address nobody marked verified is unproven, and login
 * refuses unverified ones, so without a request to prove it the user was locked out (review
 * finding). As at signup, a mail goes to the new address. True when one was asked for: the caller
 * then ends the user's sessions until it is proven (authorizer does so).
 */
export async function askToProveChangedEmail(ctx: RequestContext, before: UserRecord, after: UserRecord): Promise<boolean> {
  if (after.email === null || after.email === before.email || after.emailVerifiedAt !== null) return false;
  if (!ctx.kernel.config.bool('enable-email-verification')) return false;
  await requestEmailVerification(ctx, after.id, after.email, undefined, UPDATE_EMAIL_IDENTIFIER);
  return true;
}
