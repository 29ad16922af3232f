/**
 * GET /userinfo (OIDC Core §5.3): a user access token as bearer (RFC 6750 §2.1); claims released
 * by the token's scopes. Service-account tokens have no user and are refused.
 */
import type { RawRoute } from '../../core/plugin.js';
import { claimsForScopes } from './claims.js';
import { OAuthError, oauthErrorResponse } from './errors.js';
import { splitScope } from './params.js';

const handler: RawRoute['handler'] = async (_req, ctx) => {
  try {
    const token = ctx.bearer();
    if (!token) {
      // RFC 6750 §3.1: no credentials, no error code.
      return {
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="latchkey"', 'cache-control': 'no-store' },
        body: { error: 'invalid_token', error_description: 'a bearer access token is required' },
      };
    }
    const kernel = ctx.kernel;
    const verified = await kernel.service('tokens').verifyAccessToken(token);
    if (!verified) throw new OAuthError('invalid_token', 'the access token is invalid, expired or revoked');
    // RFC 8707, RFC 9700 §2.3: a token issued for a resource (its `aud` names that resource, not
    // the client) is for that resource only; a resource server must not be able to replay it
    // here. And a client deactivated since the token was issued gets nothing.
    const clientId = typeof verified.claims.client_id === 'string' ? verified.claims.client_id : undefined;
    const aud = Array.isArray(verified.claims.aud) ? verified.claims.aud : [verified.claims.aud];
    if (clientId === undefined || !aud.includes(clientId))
      throw new OAuthError('invalid_token', 'the access token was issued for another audience');
    const client = await kernel.service('client-registry').findByClientId(clientId);
    if (!client || !client.isActive)
      throw new OAuthError('invalid_token', 'the client of this access token is no longer active');
    const scopes =
      typeof verified.claims.scope === 'string' ? splitScope(verified.claims.scope) : verified.session.scopes;
    if (!scopes.includes('openid')) throw new OAuthError('insufficient_scope', 'the openid scope is required', 403);
    const user = await kernel.service('users').findById(verified.userId);
    if (!user || user.revokedTimestamp)
      throw new OAuthError('invalid_token', 'the user no longer exists or was revoked');
    const roleClaim = kernel.service('tokens').roleClaim;
    return {
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: { sub: verified.claims.sub, ...claimsForScopes(user, scopes), [roleClaim]: verified.session.roles },
    };
  } catch (err) {
    if (err instanceof OAuthError) {
      const res = oauthErrorResponse(err);
      if (err.status === 403) res.headers!['www-authenticate'] = `Bearer error="insufficient_scope", scope="openid"`;
      return res;
    }
    throw err;
  }
};

export const userinfoRoutes: RawRoute[] = [
  { method: 'GET', path: '/userinfo', handler },
  // OIDC Core §5.3.1: POST is allowed too (bearer in the header; no cookies involved).
  { method: 'POST', path: '/userinfo', csrfExempt: true, form: true, handler },
];
