/** Shapes the token response (RFC 6749 §5.1). */
import type { IssuedTokens } from '../../tokens/index.js';
import type { TokenResponse } from './grants.js';

/**
 * The API keeps `expires_in` as the Unix time of expiry (what existing SDKs read); RFC 6749
 * clients that treat it as seconds only over-estimate the lifetime and still see `exp` in the JWT.
 */
export function tokenResponse(t: IssuedTokens, withIdToken: boolean): TokenResponse {
  return {
    access_token: t.access_token,
    token_type: 'Bearer',
    expires_in: t.expires_in,
    scope: t.scope,
    ...(withIdToken && t.id_token ? { id_token: t.id_token } : {}),
    ...(t.refresh_token ? { refresh_token: t.refresh_token } : {}),
  };
}
