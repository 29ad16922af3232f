/**
 * `refresh_token` (RFC 6749 §6, RFC 9700 §4.14): rotation on every use and reuse detection are
 * the tokens service's; here the token must belong to the calling client and scopes may only
 * narrow.
 */
import { ServiceError } from '../../../core/errors.js';
import { invalidClient, invalidGrant } from '../errors.js';
import { splitScope } from '../params.js';
import { requireParam } from '../policy.js';
import type { GrantHandler } from './grants.js';
import { tokenResponse } from './respond.js';

export const refreshTokenGrant: GrantHandler = async ({ ctx, params, caller }) => {
  const token = requireParam(params, 'refresh_token');
  if (!caller.client.isActive) throw invalidClient('client is inactive');
  const tokens = ctx.kernel.service('tokens');
  const current = await tokens.validate(token, 'refresh_token');
  if (!current) throw invalidGrant('refresh token is invalid, expired or revoked');
  const owner = current.session.clientId ?? ctx.kernel.config.string('client-id');
  if (owner !== caller.client.clientId) throw invalidGrant('refresh token was issued to another client');
  const requested = splitScope(params.scope);
  const granted = current.session.scopes;
  const wider = requested.filter((s) => !granted.includes(s));
  if (wider.length > 0) throw invalidGrant(`scope exceeds the original grant: ${wider.join(' ')}`);
  try {
    const result = await tokens.refresh(token, { clientId: caller.client.clientId, ...(requested.length ? { scopes: requested } : {}) });
    return tokenResponse(result.tokens, (requested.length ? requested : granted).includes('openid'));
  } catch (err) {
    if (err instanceof ServiceError) throw invalidGrant(err.message);
    throw err;
  }
};
