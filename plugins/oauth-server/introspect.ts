/**
 * POST /oauth/introspect (RFC 7662): an authenticated client asks about a token issued to it.
 * Tokens of other clients, and anything invalid, answer `{active: false}` (§2.2) so a client
 * cannot probe foreign tokens. So do ID tokens: introspection answers for OAuth tokens (access and
 * refresh), and an ID token reported active as a `Bearer` token would let a resource server that
 * introspects take it for an access token (OIDC Core §2: an ID token tells the client about the
 * authentication; it is handed to front ends and is no credential for an API).
 */
import type { RawRoute } from '../../core/plugin.js';
import { identifyClient } from './client-auth.js';
import { NO_STORE, OAuthError, invalidClient, invalidRequest, oauthErrorResponse } from './errors.js';
import { readParams } from './params.js';
import { verifyServiceToken } from './service-tokens.js';

const INACTIVE = { status: 200, headers: { ...NO_STORE }, body: { active: false } };

const handler: RawRoute['handler'] = async (req, ctx) => {
  try {
    const params = readParams(req.body);
    const caller = await identifyClient(ctx, params);
    if (!caller.authenticated) throw invalidClient('introspection requires client authentication');
    if (!caller.client.isActive) throw invalidClient('client is inactive');
    const token = params.token;
    if (!token) throw invalidRequest('token is required');
    const kernel = ctx.kernel;
    const tokens = kernel.service('tokens');
    const me = caller.client.clientId;
    const builtIn = kernel.config.string('client-id');
    const hint = params.token_type_hint;

    // RFC 7662 §2.1: the hint orders the search, and a token not found under it is looked for as
    // every other type (an access token sent with the refresh_token hint answered inactive).
    // Whatever the token is for (an MCP or `resource`-bound token included): RFC 7662 asks about the token itself.
    const asAccess = () => tokens.verifyAccessToken(token, { audiences: 'any' });
    const asRefresh = () => tokens.validate(token, 'refresh_token');
    const userToken =
      hint === 'refresh_token'
        ? ((await asRefresh()) ?? (await asAccess()))
        : ((await asAccess()) ?? (await asRefresh()));
    if (userToken) {
      if ((userToken.session.clientId ?? builtIn) !== me) return INACTIVE;
      const c = userToken.claims;
      return {
        status: 200,
        headers: { ...NO_STORE },
        body: {
          active: true,
          client_id: me,
          sub: c.sub,
          ...(typeof c.scope === 'string' ? { scope: c.scope } : { scope: userToken.session.scopes.join(' ') }),
          ...(c.aud !== undefined ? { aud: c.aud } : {}),
          ...(c.exp !== undefined ? { exp: c.exp } : {}),
          ...(c.iat !== undefined ? { iat: c.iat } : {}),
          iss: tokens.issuer,
          token_type: typeof c.token_type === 'string' && c.token_type === 'refresh_token' ? 'refresh_token' : 'Bearer',
          ...(c.jti !== undefined ? { jti: c.jti } : {}),
        },
      };
    }
    const service = await verifyServiceToken(kernel, token);
    if (service && service.client_id === me) {
      return {
        status: 200,
        headers: { ...NO_STORE },
        body: {
          active: true,
          client_id: me,
          sub: service.sub,
          scope: service.scope ?? '',
          aud: service.aud,
          exp: service.exp,
          iat: service.iat,
          iss: service.iss,
          token_type: 'Bearer',
          ...(service.jti ? { jti: service.jti } : {}),
        },
      };
    }
    return INACTIVE;
  } catch (err) {
    if (err instanceof OAuthError) return oauthErrorResponse(err, /^Basic\s/i.test(ctx.header('authorization') ?? ''));
    throw err;
  }
};

export const introspectRoute: RawRoute = {
  method: 'POST',
  path: '/oauth/introspect',
  csrfExempt: true,
  form: true,
  errors: 'oauth',
  handler,
};
