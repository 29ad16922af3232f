/**
 * `GET /oauth/saml/{org_slug}/login?redirect_uri&state`: validates the application's request like
 * /oauth_login, keeps it under a fresh AuthnRequest id, and sends the browser to the IdP with the
 * AuthnRequest on the HTTP-Redirect binding (SAML Bindings §3.4).
 */
import type { RequestContext } from '../../core/context.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import { orgLoginOf } from '../org-sso/index.js';
import { LOGIN_PATH, slugOf } from './paths.js';
import { savePending } from './relay-state.js';
import { endpointsOf, newRequestId, serviceProviderOf } from './service-provider.js';

async function login(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  const slug = slugOf(req.path);
  const started = await orgLoginOf(ctx, req.query, slug, ctx.kernel.service('org-saml').connections);
  if ('refusal' in started) return started.refusal;
  const { request, connection } = started;
  const requestId = newRequestId();
  const sp = serviceProviderOf(
    ctx.kernel.memory,
    connection,
    endpointsOf(ctx.kernel.config, connection, slug),
    requestId,
  );
  const location = await sp.getAuthorizeUrlAsync('', undefined, {});
  await savePending(ctx, requestId, { connectionId: connection.id, slug, request });
  return { status: 302, headers: { location, 'cache-control': 'no-store' } };
}

export const loginRoute: RawRoute = { method: 'GET', path: LOGIN_PATH, handler: login };
