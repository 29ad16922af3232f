/**
 * Redeeming a magic link at `/verify_email` or `verify_email`: the token is taken once, the
 * account must still hold the address it was sent to, the address counts as verified (the link
 * reached it), and the sign-in ends through the `sign-in` service (the MFA gate applies).
 */
import type { RequestContext } from '../../core/context.js';
import { invalidArgument, permissionDenied } from '../../core/errors.js';
import type { LinkTokens } from '../email/index.js';
import { EMAIL_AMR, type Redeemed } from '../email-verification/index.js';
import { loginEvent } from '../sign-in/index.js';
import { MAGIC_LINK_METHOD, type MagicLinkGrant } from './request.js';

export async function redeemMagicLink(
  ctx: RequestContext,
  token: string,
  tokens: LinkTokens<MagicLinkGrant>,
): Promise<Redeemed | null> {
  const readAt = Date.now();
  const grant = await tokens.take(token);
  if (!grant) return null;
  const users = ctx.kernel.service('users');
  let user = await users.findById(grant.userId, { fresh: true });
  if (!user || user.email !== grant.email) throw invalidArgument('invalid or expired token');
  if (user.revokedTimestamp !== null) throw permissionDenied('user access has been revoked');
  if (!grant.roles.every((r) => user!.roles.includes(r))) throw permissionDenied('invalid role');
  const methods = user.signupMethods.includes(MAGIC_LINK_METHOD)
    ? undefined
    : [...user.signupMethods, MAGIC_LINK_METHOD];
  if (user.emailVerifiedAt === null || methods) {
    user = (await users.update(user.id, { email_verified: true, ...(methods ? { signup_methods: methods } : {}) }))
      .after;
  }
  const result = await ctx.kernel.service('sign-in').complete(ctx, {
    user,
    method: MAGIC_LINK_METHOD,
    roles: grant.roles,
    scopes: grant.scopes,
    amr: [EMAIL_AMR],
    message: 'Logged in successfully',
    readAt,
    within: loginEvent(ctx.kernel.events, MAGIC_LINK_METHOD),
  });
  return { result, redirectUri: grant.redirectUri, state: grant.state };
}
