/**
 * `client_credentials` (RFC 6749 §4.4): only an authenticated, active
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
  const signed = await tokens.sign(
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
  if (!signed.token) throw new OAuthError('server_error', 'token could not be issued', 500);
  return {
    access_token: signed.token,
    token_type: 'Bearer',
    // POST /oauth/token answers the timestamp of expiry, i.e. the token's own `exp`; a clock
    // read after signing could name a second past it.
    expires_in: signed.expiresAt,
    scope: scopes.join(' '),
  };
};
