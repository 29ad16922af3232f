/**
 * `refresh_token` (RFC 6749 §6, RFC 9700 §4.14): rotation on every use, reuse detection (a spent
 * token revokes its family) and the binding to the client that got it are the tokens service's;
 * scopes may only narrow.
 */
import { ServiceError } from '../../../core/errors.js';
import { ScopeExceedsGrantError } from '../../tokens/index.js';
import { invalidClient, invalidGrant, OAuthError } from '../errors.js';
import { splitScope } from '../params.js';
import { requireParam } from '../policy.js';
import type { GrantHandler } from './grants.js';
import { tokenResponse } from './respond.js';

export const refreshTokenGrant: GrantHandler = async ({ ctx, params, caller }) => {
  const token = requireParam(params, 'refresh_token');
  if (!caller.client.isActive) throw invalidClient('client is inactive');
  const requested = splitScope(params.scope);
  try {
    const result = await ctx.kernel
      .service('tokens')
      .refresh(token, { clientId: caller.client.clientId, ...(requested.length ? { scopes: requested } : {}) });
    return tokenResponse(result.tokens, result.tokens.scope.split(' ').includes('openid'));
  } catch (err) {
    if (err instanceof ScopeExceedsGrantError) throw new OAuthError('invalid_scope', err.message);
    if (err instanceof ServiceError && err.status.http < 500) throw invalidGrant(err.message);
    throw err;
  }
};
