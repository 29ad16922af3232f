/**
 * GET /authorize: validate the request, find the browser session (or send the user to the hosted
 * login page and come back to this same request), then answer with a code or tokens in the
 * requested response mode.
 */
import type { RequestContext } from '../../../core/context.js';
import type { RawResponse, RawRoute } from '../../../core/plugin.js';
import type { SessionRecord } from '../../sessions/index.js';
import { storeCode } from '../codes.js';
import { OAuthError } from '../errors.js';
import { baseOf, issuerOf } from '../issuer.js';
import { readParams, type Params } from '../params.js';
import {
  parseAuthorizationRequest,
  responseModeOf,
  trustedTarget,
  UntrustedRequestError,
  type AuthorizationRequest,
} from './request.js';
import { consentPage, consented } from './consent.js';
import { deliver, errorPage } from './respond.js';

/**
 * Internal marker: re-authentication for prompt=login / max_age was asked at this time (Unix
 * milliseconds; seconds would let a session signed in earlier in the same second pass as fresh).
 */
export const REAUTH_PARAM = 'login_at';
export const LOGIN_PAGE_PATH = '/app';

function loginPageEnabled(ctx: RequestContext): boolean {
  return ctx.kernel.routes.some((r) => r.path === LOGIN_PAGE_PATH && r.method === 'GET');
}

/** The hosted login page, told to come back to this very request afterwards. */
function toLogin(ctx: RequestContext, params: Params, req: AuthorizationRequest, reauth: boolean): RawResponse {
  const back = new URLSearchParams(params);
  back.delete(REAUTH_PARAM);
  back.delete('prompt');
  const kept = req.prompt.filter((p) => p !== 'login');
  if (kept.length) back.set('prompt', kept.join(' '));
  if (reauth) back.set(REAUTH_PARAM, String(Date.now()));
  const login = new URLSearchParams({ return_to: `/authorize?${back.toString()}` });
  if (req.screenHint === 'signup') login.set('screen_hint', 'signup');
  return {
    status: 302,
    headers: {
      location: `${baseOf(ctx.kernel.config)}${LOGIN_PAGE_PATH}?${login.toString()}`,
      'cache-control': 'no-store',
    },
  };
}

/**
 * Whether the session is fresh enough for prompt=login and max_age (OIDC Core §3.1.2.1): after
 * prompt=login, only a session created by a sign-in after the request was sent to the login page.
 */
function needsReauth(session: SessionRecord, params: Params, req: AuthorizationRequest): boolean {
  const loginAt = Number(params[REAUTH_PARAM] ?? 0);
  const signedInSince = loginAt > 0 && session.createdAt > loginAt && session.authTime >= Math.floor(loginAt / 1000);
  // The request coming back from the login page carries the marker instead of prompt=login
  // (which would otherwise loop): the marker alone still demands the fresh sign-in.
  if ((req.prompt.includes('login') || loginAt > 0) && !signedInSince) return true;
  if (req.maxAge !== undefined && Math.floor(Date.now() / 1000) - session.authTime > req.maxAge) return true;
  return false;
}

async function answer(
  ctx: RequestContext,
  req: AuthorizationRequest,
  session: SessionRecord,
): Promise<Record<string, string>> {
  const kernel = ctx.kernel;
  const user = await kernel.service('users').findById(session.userId);
  if (!user || user.revokedTimestamp) throw new OAuthError('access_denied', 'the user may not sign in');
  const iss = issuerOf(kernel.config);
  if (req.responseType === 'code') {
    const code = await storeCode(kernel.memory, {
      clientId: req.client.clientId,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge!,
      userId: user.id,
      browserSessionId: session.id,
      browserFamily: session.family ?? session.id,
      scopes: req.scopes,
      roles: session.roles,
      amr: session.amr,
      authTime: session.authTime,
      ...(req.nonce ? { nonce: req.nonce } : {}),
      ...(req.resource ? { resource: req.resource } : {}),
    });
    return { code, state: req.state, iss };
  }
  // Implicit: tokens straight from here, in a session of their own (like a code redemption).
  const clientSession = await kernel.service('sessions').create({
    userId: user.id,
    roles: session.roles,
    scopes: req.scopes,
    amr: session.amr,
    authTime: session.authTime,
    clientId: req.client.clientId,
    // Ending the browser session ends these tokens too (stateful access tokens).
    issuedFrom: session.family ?? session.id,
  });
  const t = await kernel.service('tokens').issue({
    idTokenClaimsByScope: true,
    user,
    session: clientSession,
    scopes: req.scopes,
    roles: session.roles,
    clientId: req.client.clientId,
    refresh: false,
    ...(req.resource ? { audience: req.resource } : {}),
    ...(req.nonce ? { nonce: req.nonce } : {}),
  });
  return {
    access_token: t.access_token,
    token_type: 'Bearer',
    expires_in: String(t.expires_in),
    scope: t.scope,
    // OIDC Core §3.2.2.1: an ID token from the front channel needs the client's nonce to be
    // bound to its request; without one the implicit answer carries the access token only.
    ...(req.scopes.includes('openid') && t.id_token && req.nonce ? { id_token: t.id_token } : {}),
    state: req.state,
    iss,
  };
}

export const authorizeRoute: RawRoute = {
  method: 'GET',
  path: '/authorize',
  handler: async (raw, ctx) => {
    const kernel = ctx.kernel;
    const registry = kernel.service('client-registry');
    let params: Params;
    let target: { client: import('../../client-registry/service.js').OAuthClient; redirectUri: string };
    try {
      params = readParams(raw.query);
      target = await trustedTarget(
        params,
        async (id) => {
          // A metadata-document client that cannot be used says why (fetch, document or host).
          const found = await registry.resolveClient(id);
          if ('error' in found) throw new UntrustedRequestError('invalid_client', found.error);
          return found.client;
        },
        (c, u) => registry.redirectAllowed(c, u),
      );
    } catch (err) {
      if (err instanceof UntrustedRequestError) return errorPage(400, err.error, err.message);
      if (err instanceof OAuthError) return errorPage(400, err.error, err.description);
      throw err;
    }
    const mode = responseModeOf(params, kernel.config);
    const fail = (error: string, description: string): RawResponse =>
      deliver(mode, target.redirectUri, {
        error,
        error_description: description,
        ...(params.state ? { state: params.state } : {}),
        iss: issuerOf(kernel.config),
      });
    try {
      const req = parseAuthorizationRequest(params, kernel.config, target);
      const session = await kernel.service('sessions').fromRequest(ctx);
      if (!session) {
        if (req.prompt.includes('none')) return fail('login_required', 'the user is not signed in');
        if (!loginPageEnabled(ctx))
          return fail('login_required', 'the user is not signed in and no login page is enabled');
        return toLogin(ctx, params, req, false);
      }
      if (needsReauth(session, params, req)) {
        if (req.prompt.includes('none')) return fail('login_required', 'the user must sign in again');
        if (!loginPageEnabled(ctx))
          return fail('login_required', 'the user must sign in again and no login page is enabled');
        return toLogin(ctx, params, req, true);
      }
      const query = new URLSearchParams(params).toString();
      if (req.client.selfRegistered && !(await consented(ctx, session, req, query))) {
        if (req.prompt.includes('none')) return fail('consent_required', 'the user has not approved this client');
        return consentPage(ctx, session, req, query);
      }
      return deliver(req.responseMode, req.redirectUri, await answer(ctx, req, session));
    } catch (err) {
      if (err instanceof OAuthError) return fail(err.error, err.description);
      throw err;
    }
  },
};
