/**
 * `client_credentials` (RFC 6749 §4.4, SPEC.md "Token facts"): only an authenticated, active
 * client; the audience is the client id or the `resource` (RFC 8707); the subject is the service
 * account `service_account:<client_id>`. No refresh token, no ID token (§4.4.3).
 */
import { randomUUID } from 'node:crypto';
import { OAuthError, invalidClient } from '../errors.js';
import { splitScope } from '../params.js';
import { checkResource, grantScopes } from '../policy.js';
import type { GrantHandler } from './grants.js';

export const clientCredentialsGrant: GrantHandler = async ({ ctx, params, caller }) => {
  if (!caller.authenticated) throw invalidClient('client_credentials requires client authentication');
  if (!caller.client.isActive) throw invalidClient('client is inactive');
  const scopes = grantScopes(caller.client, splitScope(params.scope), []);
  const resource = checkResource(params.resource);
  const tokens = ctx.kernel.service('tokens');
  const clientId = caller.client.clientId;
  const ttl = tokens.accessTtlSeconds;
  const access = await tokens.sign(
    {
      sub: `service_account:${clientId}`,
      aud: resource ?? clientId,
      client_id: clientId,
      scope: scopes.join(' '),
      token_type: 'access_token',
      jti: randomUUID(),
    },
    ttl,
  );
  if (!access) throw new OAuthError('server_error', 'token could not be issued', 500);
  return {
    access_token: access,
    token_type: 'Bearer',
    // SPEC.md POST /oauth/token: the timestamp of expiry, i.e. the token's own `exp`; a clock
    // read after signing could name a second past it (review finding).
    expires_in: expiryOf(access),
    scope: scopes.join(' '),
  };
};

/** The `exp` of a token this server has just signed (its payload is ours, read without checks). */
function expiryOf(jwt: string): number {
  return (JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp: number }).exp;
}
