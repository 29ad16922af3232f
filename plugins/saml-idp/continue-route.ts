/**
 * `GET /saml/idp/{org_slug}/continue?ticket=…`: the checked request meets the user. Without a
 * browser session the user goes to the hosted login page and comes back here; with one, the user
 * must be an active member of the organization; then the ticket is spent and the browser posts
 * the signed Response to the provider's registered ACS (HTTP-POST binding).
 */
import type { RequestContext } from '../../core/context.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import { nameIdOf } from './attributes.js';
import { signedResponse } from './idp-entity.js';
import { organizationOf } from './organization-of.js';
import { errorPage, postForm } from './pages.js';
import { commonNameOf, CONTINUE_PATH, continuePathOf, idpEndpointsOf } from './paths.js';
import { peek, take } from './pending.js';

const LOGIN_PAGE_PATH = '/app';
const expired = () =>
  errorPage(400, 'invalid_request', 'the sign-in request is unknown or has expired; start it again');

function toLogin(ctx: RequestContext, slug: string, ticket: string): RawResponse {
  const loginPage = ctx.kernel.routes.some((r) => r.path === LOGIN_PAGE_PATH && r.method === 'GET');
  if (!loginPage) return errorPage(401, 'login_required', 'sign in to this service first, then start again');
  const back = `${continuePathOf(slug)}?${new URLSearchParams({ ticket })}`;
  const base = ctx.kernel.config.string('url', '').replace(/\/+$/, '');
  return {
    status: 302,
    headers: {
      location: `${base}${LOGIN_PAGE_PATH}?${new URLSearchParams({ return_to: back })}`,
      'cache-control': 'no-store',
    },
  };
}

async function proceed(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  const kernel = ctx.kernel;
  const org = await organizationOf(ctx, req.path);
  const ticket = req.query.ticket;
  const pending = await peek(kernel.memory, ticket);
  if (!org || !pending || pending.orgId !== org.id) return expired();
  const session = await kernel.service('sessions').fromRequest(ctx);
  if (!session) return toLogin(ctx, org.name, ticket!);
  // From here on the ticket is spent, whatever the outcome: one request, one answer.
  if (!(await take(kernel.memory, ticket!))) return expired();
  const user = await kernel.service('users').findById(session.userId);
  if (!user || user.revokedTimestamp !== null) return errorPage(403, 'access_denied', 'this account may not sign in');
  if (!(await kernel.service('organizations').isMember(org.id, user.id)))
    return errorPage(403, 'access_denied', 'this account is not a member of the organization');
  const idp = kernel.service('saml-idp');
  const provider = await idp.providers.get(pending.providerId);
  if (!provider || !provider.isActive || provider.orgId !== org.id) return expired();
  const nameId = nameIdOf(user, provider.nameIdFormat);
  if (!nameId) return errorPage(403, 'access_denied', 'this account has no email address for the service provider');
  const signer = await idp.keys.signer(org.id, commonNameOf(org.name));
  const response = await signedResponse(idpEndpointsOf(kernel.config, org.name), signer, provider, {
    user,
    nameId,
    authTime: session.authTime,
    amr: session.amr,
    sessionId: session.family ?? session.id,
    inResponseTo: pending.requestId,
  });
  return postForm(provider.acsUrl, {
    SAMLResponse: response,
    ...(pending.relayState !== null ? { RelayState: pending.relayState } : {}),
  });
}

export const continueRoute: RawRoute = { method: 'GET', path: CONTINUE_PATH, handler: proceed };
