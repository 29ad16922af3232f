/**
 * GET /logout (SPEC.md; OIDC RP-Initiated Logout 1.0 §2-3): ends the browser session, then goes
 * to `post_logout_redirect_uri` (or SPEC.md's `redirect_uri`) only when that destination is
 * registered for the client named by `client_id` or `id_token_hint` (the built-in client: an
 * allowed origin). `state` is echoed. Otherwise a plain signed-out page (no open redirect).
 */
import type { RawResponse, RawRoute } from '../../core/plugin.js';
import { readParams } from './params.js';
import { errorPage } from './authorize/respond.js';

/**
 * The client an `id_token_hint` names, only when it is an ID token this service signed (expired
 * ones count). It used to be read without checking the signature, so a forged hint chose the
 * client whose logout destinations applied (a review finding).
 */
async function hintedClient(ctx: Parameters<RawRoute['handler']>[1], hint: string | undefined): Promise<string | undefined> {
  if (!hint) return undefined;
  const claims = await ctx.kernel.service('tokens').verifyIdTokenHint(hint);
  const aud = claims?.aud;
  const first = Array.isArray(aud) ? aud[0] : aud;
  return typeof first === 'string' ? first : undefined;
}

const signedOut: RawResponse = {
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
  body: '<!doctype html><html><head><meta charset="utf-8"><title>Signed out</title></head><body><h1>You are signed out</h1></body></html>',
};

export const logoutRoute: RawRoute = {
  method: 'GET',
  path: '/logout',
  handler: async (req, ctx) => {
    let params: Record<string, string>;
    try {
      params = readParams(req.query);
    } catch {
      return errorPage(400, 'invalid_request', 'parameters must not be repeated');
    }
    const kernel = ctx.kernel;
    const hinted = await hintedClient(ctx, params.id_token_hint);
    // §2: when both are given, the hint's client and client_id must agree.
    if (hinted !== undefined && params.client_id !== undefined && params.client_id !== hinted) {
      return errorPage(400, 'invalid_request', 'client_id does not match the id_token_hint');
    }
    const sessions = kernel.service('sessions');
    const session = await sessions.fromRequest(ctx);
    if (session) await sessions.revoke(session.userId, session.id);
    sessions.clearCookies(ctx);

    const target = params.post_logout_redirect_uri ?? params.redirect_uri;
    if (!target) return signedOut;
    const registry = kernel.service('client-registry');
    const clientId = params.client_id ?? hinted ?? kernel.config.string('client-id') ?? '';
    const client = await registry.findByClientId(clientId);
    if (!client || !registry.logoutRedirectAllowed(client, target)) {
      return errorPage(400, 'invalid_request', 'the logout redirect URI is not registered for this client');
    }
    const url = new URL(target);
    if (params.state) url.searchParams.set('state', params.state);
    return { status: 302, headers: { location: url.toString(), 'cache-control': 'no-store' } };
  },
};
