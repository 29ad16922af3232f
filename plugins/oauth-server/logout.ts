/**
 * GET /logout (OIDC RP-Initiated Logout 1.0 §2-3): ends the browser session, then goes
 * to `post_logout_redirect_uri` (or the older `redirect_uri`) only when that destination is
 * registered for the client named by `client_id` or `id_token_hint` (the built-in client: an
 * allowed origin). `state` is echoed. Otherwise a plain signed-out page (no open redirect).
 *
 * Asking first (§2: without a valid `id_token_hint` the OP should ask the user whether to log
 * out): a top-level navigation from another site (`Sec-Fetch-Site: cross-site`) without a hint
 * that would end a live session gets a page with one button, which posts the same parameters to
 * POST /logout from this origin. Any website could otherwise sign its visitors out by sending
 * them to /logout. Navigations from the service's own site or typed by the user,
 * requests with a hint, and browsers that do not send the header log out at once, as before.
 */
import { recordAudit } from '../../core/audit.js';
import type { RequestContext } from '../../core/context.js';
import type { RawResponse, RawRoute } from '../../core/plugin.js';
import { readParams, type Params } from './params.js';
import { errorPage, esc } from './authorize/respond.js';

/**
 * The client an `id_token_hint` names, only when it is an ID token this service signed (expired
 * ones count): read without checking the signature, a forged hint would choose the client
 * whose logout destinations apply.
 */
async function hintedClient(
  ctx: Parameters<RawRoute['handler']>[1],
  hint: string | undefined,
): Promise<string | undefined> {
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

/** The parameters the confirmation page posts back (the rest are not part of logout). */
const CARRIED = [
  'id_token_hint',
  'client_id',
  'post_logout_redirect_uri',
  'redirect_uri',
  'state',
  'ui_locales',
] as const;

function confirmPage(params: Params, organization: string): RawResponse {
  const inputs = CARRIED.filter((k) => params[k] !== undefined)
    .map((k) => `<input type="hidden" name="${k}" value="${esc(params[k]!)}">`)
    .join('');
  return {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      // The form's post must carry this origin (csrf.ts); `no-referrer` would make it `null`.
      'referrer-policy': 'same-origin',
    },
    body:
      `<!doctype html><html><head><meta charset="utf-8"><title>Sign out</title></head><body>` +
      `<h1>Sign out of ${esc(organization)}?</h1><form method="post" action="/logout">${inputs}<button type="submit">Sign out</button></form></body></html>`,
  };
}

async function logout(
  params: Params,
  ctx: RequestContext,
  confirmed: boolean,
  fetchSite: string | undefined,
): Promise<RawResponse> {
  const kernel = ctx.kernel;
  const hinted = await hintedClient(ctx, params.id_token_hint);
  // §2: when both are given, the hint's client and client_id must agree.
  if (hinted !== undefined && params.client_id !== undefined && params.client_id !== hinted) {
    return errorPage(400, 'invalid_request', 'client_id does not match the id_token_hint');
  }
  const sessions = kernel.service('sessions');
  const session = await sessions.fromRequest(ctx);
  if (session && !confirmed && hinted === undefined && fetchSite === 'cross-site') {
    return confirmPage(params, kernel.config.string('organization-name', 'Latchkey'));
  }
  if (session) await sessions.revoke(session.userId, session.id);
  sessions.clearCookies(ctx);
  // Audited as the `logout` operation is (docs/audit.md `user.logout`); a request without a live
  // session ends nothing and is not recorded.
  if (session) {
    await recordAudit(ctx, {
      action: 'user.logout',
      resourceType: 'session',
      resourceId: session.id,
      actor: { kind: 'user', id: session.userId },
      metadata: { endpoint: '/logout', ...(hinted ? { client_id: hinted } : {}) },
    });
  }

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
  // 303 after the confirmation's POST: the browser follows with GET (RFC 9110 §15.4.4).
  return { status: confirmed ? 303 : 302, headers: { location: url.toString(), 'cache-control': 'no-store' } };
}

/** Reads the parameters (a query or a form body) and logs out; repeated parameters are a 400. */
async function logoutWith(
  source: unknown,
  ctx: RequestContext,
  confirmed: boolean,
  fetchSite: string | undefined,
): Promise<RawResponse> {
  let params: Params;
  try {
    params = readParams(source);
  } catch {
    return errorPage(400, 'invalid_request', 'parameters must not be repeated');
  }
  return logout(params, ctx, confirmed, fetchSite);
}

export const logoutRoute: RawRoute = {
  method: 'GET',
  path: '/logout',
  handler: (req, ctx) => logoutWith(req.query, ctx, false, req.headers['sec-fetch-site']),
};

/** The confirmation page's post (same origin only: the CSRF check of every POST applies). */
export const logoutConfirmRoute: RawRoute = {
  method: 'POST',
  path: '/logout',
  form: true,
  handler: (req, ctx) => logoutWith(req.body, ctx, true, req.headers['sec-fetch-site']),
};
