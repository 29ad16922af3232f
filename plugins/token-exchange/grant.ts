/**
 * The token-exchange grant (RFC 8693): an agent (an authenticated,
 * active client) presents a user's access token as `subject_token` and its own client-credentials
 * token as `actor_token`, and receives a delegated access token for the user that names the agent
 * in `act` (RFC 8693 §4.1). Steps: the client, the token types, the subject, the actor, the
 * audience, the scopes, then the token: five minutes, no refresh token, bound to the user's
 * session (`sid`) so it ends with it, and checked by FGA as the intersection of agent and user.
 */
import { randomUUID } from 'node:crypto';
import { AGENT_PREFIX, mcpAudience } from '../tokens/index.js';
import { OAuthError, type GrantHandler } from '../oauth-server/index.js';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** Delegated tokens live 5 minutes. */
export const DELEGATED_TTL_SECONDS = 5 * 60;
const invalidRequest = (d: string) => new OAuthError('invalid_request', d);
const invalidGrant = (d: string) => new OAuthError('invalid_grant', d);

export const tokenExchangeGrant: GrantHandler = async ({ ctx, params, caller }) => {
  // The client: the agent authenticates itself (RFC 8693 §2.1 leaves it to RFC 6749 §2.3).
  if (!caller.authenticated) throw new OAuthError('invalid_client', 'token exchange requires client authentication');
  if (!caller.client.isActive) throw new OAuthError('invalid_client', 'client is inactive');
  const agentId = caller.client.clientId;

  // The token types: access tokens only.
  for (const name of ['subject_token', 'actor_token'] as const) {
    if (!params[name]) throw invalidRequest(`${name} is required`);
    if (params[`${name}_type`] !== ACCESS_TOKEN_TYPE) {
      throw new OAuthError('invalid_request', `${name}_type must be ${ACCESS_TOKEN_TYPE}`);
    }
  }

  // The subject: a live user access token for Latchkey itself, not already delegated.
  const tokens = ctx.kernel.service('tokens');
  const subject = await tokens.verifyAccessToken(params.subject_token!);
  if (!subject) throw invalidGrant('subject_token is not a valid access token');
  if (subject.claims.act !== undefined) throw invalidGrant('subject_token is already a delegated token');

  // The actor: the agent's own client-credentials token.
  const actor = await ctx.kernel.service('oauth-server').verifyServiceToken(params.actor_token!);
  if (!actor || actor.client_id !== agentId)
    throw invalidGrant('actor_token must be an access token of the calling client');

  // The audience: Latchkey's API or its MCP server.
  const url = ctx.kernel.config.string('url', '');
  const origin = new URL(url).origin;
  const mcp = mcpAudience(url);
  const resource = params.resource ?? origin;
  if (resource !== origin && resource !== mcp) {
    throw new OAuthError('invalid_target', `resource must be ${origin} or ${mcp}`);
  }

  // The scopes: no more than the user's token carries (RFC 8693 §2.1 `scope`).
  const held = typeof subject.claims.scope === 'string' ? subject.claims.scope.split(' ').filter(Boolean) : [];
  const asked = params.scope ? params.scope.split(' ').filter(Boolean) : held;
  const extra = asked.find((s) => !held.includes(s));
  if (extra !== undefined)
    throw new OAuthError('invalid_scope', `scope "${extra.slice(0, 40)}" exceeds the subject token`);
  const scope = asked.filter((s) => s !== 'offline_access').join(' ');

  const signed = await tokens.sign(
    {
      sub: subject.userId,
      sid: subject.session.id,
      aud: resource,
      client_id: agentId,
      scope,
      token_type: 'access_token',
      act: { sub: `${AGENT_PREFIX}${agentId}` },
      jti: randomUUID(),
    },
    DELEGATED_TTL_SECONDS,
  );
  return {
    access_token: signed.token,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: 'Bearer',
    // POST /oauth/token answers `expires_in` as the timestamp of expiry, the token's own `exp`.
    expires_in: signed.expiresAt,
    scope,
  };
};
