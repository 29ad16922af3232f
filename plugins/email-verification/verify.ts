/**
 * Redeeming a link token: a stored verification request proves the address it was sent to and
 * signs the user in through the `sign-in` service (so the MFA gate applies); otherwise each
 * registered redeemer (magic links) is asked. A token works once (the request is consumed) and
 * only for the address it was sent to: a user who changed address meanwhile cannot prove the new
 * one with the old link.
 */
import type { RequestContext } from '../../core/context.js';
import { invalidArgument, permissionDenied, ServiceError } from '../../core/errors.js';
import { recordLoginRefusal } from '../sign-in/index.js';
import type { Redeemed } from './link-tokens.js';

export const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
export const EMAIL_VERIFIED = 'Email verified successfully.';
export const invalidToken = () => invalidArgument('invalid or expired token');

/**
 * RFC 8176 registers no value for control of a mailbox; `email` names it (§6.1 lets parties agree
 * on values outside the registry).
 */
export const EMAIL_AMR = 'email';

/**
 * Redeems a mailed link (`verify_email`, `GET /verify_email`); a refused one is a refused login in
 * the audit log (a sign-in by link that did not happen), recorded here for every kind of link.
 */
export async function redeemToken(ctx: RequestContext, token: string): Promise<Redeemed> {
  try {
    return await redeem(ctx, token);
  } catch (err) {
    if (err instanceof ServiceError && err.status.http < 500) {
      await recordLoginRefusal(ctx, { method: EMAIL_LINK_METHOD, error: err });
    }
    throw err;
  }
}

/** The `method` of a refused link's record: which kind of link it was is not known without a valid token. */
const EMAIL_LINK_METHOD = 'email_link';

async function redeem(ctx: RequestContext, token: string): Promise<Redeemed> {
  const users = ctx.kernel.service('users');
  const readAt = Date.now();
  const request = await users.verifications.consume(token);
  if (!request) {
    for (const redeem of ctx.kernel.service('email-verification').redeemers) {
      const done = await redeem(ctx, token);
      if (done) return done;
    }
    throw invalidToken();
  }
  const user = request.userId ? await users.findById(request.userId, { fresh: true }) : null;
  if (!user || user.email !== request.email) throw invalidToken();
  if (user.revokedTimestamp !== null) throw permissionDenied('user access has been revoked');
  const { after } = await users.update(user.id, { email_verified: true });
  const result = await ctx.kernel.service('sign-in').complete(ctx, {
    user: after,
    method: after.signupMethods[0] ?? 'basic_auth',
    roles: after.roles,
    scopes: DEFAULT_SCOPES,
    amr: [EMAIL_AMR],
    message: EMAIL_VERIFIED,
    readAt,
  });
  return { result, redirectUri: request.redirectUri, state: null };
}
