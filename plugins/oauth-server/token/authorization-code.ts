/**
 * `authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.6), as a list of checks:
 * the code exists and is fresh (single use; a replay revokes what it produced), was issued to
 * this client for this redirect URI, the PKCE verifier matches, and — for a public client, which
 * proves nothing about itself — the request comes from the browser session that approved it
 *.
 */
import type { RequestContext } from '../../../core/context.js';
import { ServiceError } from '../../../core/errors.js';
import { consumeCode, markSpent, type CodeGrant } from '../codes.js';
import { invalidClient, invalidGrant, invalidRequest } from '../errors.js';
import { isVerifier, verifierMatches } from '../pkce.js';
import { requireParam } from '../policy.js';
import type { GrantHandler } from './grants.js';
import { tokenResponse } from './respond.js';

async function revokeReplayed(ctx: RequestContext, userId: string | null, sessionId: string | null): Promise<void> {
  if (userId && sessionId) await ctx.kernel.service('sessions').revoke(userId, sessionId);
}

export const authorizationCodeGrant: GrantHandler = async ({ ctx, params, caller }) => {
  const code = requireParam(params, 'code');
  const verifier = params.code_verifier;
  if (!verifier) throw invalidRequest('code_verifier is required (PKCE)');
  if (!isVerifier(verifier)) throw invalidRequest('code_verifier must be 43 to 128 unreserved characters');
  if (!caller.client.isActive) throw invalidClient('client is inactive');

  const found = await consumeCode(ctx.kernel.memory, code);
  if (found.kind === 'spent') {
    await revokeReplayed(ctx, found.userId, found.sessionId);
    throw invalidGrant('authorization code has already been used');
  }
  if (found.kind === 'unknown') throw invalidGrant('authorization code is invalid or expired');
  const grant: CodeGrant = found.grant;

  if (grant.clientId !== caller.client.clientId) throw invalidGrant('authorization code was issued to another client');
  if (params.redirect_uri !== grant.redirectUri)
    throw invalidGrant('redirect_uri does not match the authorization request');
  if (!verifierMatches(verifier, grant.codeChallenge))
    throw invalidGrant('code_verifier does not match the code_challenge');

  const sessions = ctx.kernel.service('sessions');
  // The built-in application redeems from the browser that approved the code. A self-registered
  // public client redeems from its own process (a CLI, a desktop agent): the PKCE verifier, which
  // only the party that started the flow holds (RFC 7636 §1), binds the code to it instead.
  if (!caller.authenticated && !caller.client.selfRegistered) {
    const browser = await sessions.fromRequest(ctx);
    if (!browser || browser.id !== grant.browserSessionId)
      throw invalidGrant('a valid browser session is required for this grant');
  }
  const readAt = Date.now();
  // From the database, not the per-process cache: an admin's revoke or role change made on
  // another server in the last seconds is not in this process's copy, and a confidential client
  // must not redeem without the browser session that change ended.
  const user = await ctx.kernel.service('users').findById(grant.userId, { fresh: true });
  if (!user || user.revokedTimestamp) throw invalidGrant('the user may no longer sign in');
  // The grant's roles were the browser session's when the code was issued; one taken from the
  // user since then must not come back in the tokens this code buys (RFC 6749 §10.5: a code is a
  // short-lived stand-in for the authorization, never more than it).
  if (!grant.roles.every((r) => user.roles.includes(r)))
    throw invalidGrant('the user no longer holds the roles of this grant');

  // Each redemption gets a session of its own, so the client's tokens can be revoked (replay,
  // refresh reuse, /oauth/revoke) without signing the user out of the browser; it is issued from
  // the browser session, so signing out of the browser ends it (access tokens are
  // stateful), and a logout that lands while this runs makes it fail (sessions' create).
  // A revoke of every session of the user since it was read (sessions/service.ts readAt) is an
  // RFC 6749 §5.2 invalid_grant here, not the REST envelope.
  const session = await sessions
    .create({
      userId: user.id,
      roles: grant.roles,
      scopes: grant.scopes,
      amr: grant.amr,
      authTime: grant.authTime,
      clientId: grant.clientId,
      readAt,
      issuedFrom: grant.browserFamily ?? grant.browserSessionId,
    })
    .catch((err: unknown) => {
      if (err instanceof ServiceError && err.status.http < 500) throw invalidGrant(err.message);
      throw err;
    });
  const issued = await ctx.kernel.service('tokens').issue({
    idTokenClaimsByScope: true,
    user,
    session,
    scopes: grant.scopes,
    roles: grant.roles,
    clientId: grant.clientId,
    ...(grant.resource ? { audience: grant.resource } : {}),
    ...(grant.nonce ? { nonce: grant.nonce } : {}),
  });
  await markSpent(ctx.kernel.memory, code, user.id, session.id);
  return tokenResponse(issued, grant.scopes.includes('openid'));
};
