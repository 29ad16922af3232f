/**
 * Email verification at signup (`--enable-email-verification`): a `basic_auth_signup`
 * verification request is stored (token hashed, see plugins/users/verification.ts) and the
 * `email.verification_requested` hook carries the plain token to whoever sends the mail: the
 * email plugin, when it exists, subscribes to it and builds the link to `/verify_email?token=`
 * (SPEC.md "Endpoints"). The token travels on a hook, not on the event bus, because the bus feeds
 * webhooks and audit subscribers, which must never see a usable token.
 */
import type { RequestContext } from '../../core/context.js';
import { deps } from './service.js';

/** authorizer's wording for this answer (its SDKs show it as is). */
export const VERIFICATION_SENT = 'Verification email has been sent. Please check your inbox';
export const SIGNUP_IDENTIFIER = 'basic_auth_signup';
/** A changed address (update_profile), authorizer's identifier for it. */
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
  const { users } = deps(ctx);
  const { record, token } = await users.verifications.create({
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
    // again (resend_verify_email), so the signup itself still succeeds.
    ctx.kernel.logger.warn({ err, userId }, 'verification mail could not be queued');
  }
}
