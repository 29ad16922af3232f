/**
 * Where a sign-in starts. SP-initiated: `GET /saml/idp/{org_slug}/sso` (HTTP-Redirect binding) and
 * `POST` on the same path (HTTP-POST binding) take the service provider's AuthnRequest through
 * the request checks. IdP-initiated: `GET /saml/idp/{org_slug}/initiate?sp=<entity id>` for a
 * provider that allows it (SAML Profiles §4.1.5). Either way the checked request is parked under
 * a ticket and the browser goes on to the continue route; a refused request answers a 4xx page
 * and parks nothing.
 */
import type { RequestContext } from '../../core/context.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import type { Binding } from './authn-request.js';
import { organizationOf } from './organization-of.js';
import { errorPage } from './pages.js';
import { continuePathOf, INITIATE_PATH, SSO_PATH, ssoUrlOf } from './paths.js';
import { park, type PendingSignIn } from './pending.js';
import { bodyField, checkedRequest } from './request-checks.js';
import { RefusedSamlMessage } from './xml-guard.js';

/** SAML Bindings §3.4.3 bounds RelayState at 80 bytes; longer values some SPs send are kept up to this. */
const MAX_RELAY_STATE = 1024;

const notFound = () => errorPage(404, 'not_found', 'no SAML identity provider for this organization');
const refused = (reason: string) => errorPage(400, 'invalid_saml_request', reason);

async function toContinue(ctx: RequestContext, slug: string, pending: PendingSignIn): Promise<RawResponse> {
  const ticket = await park(ctx.kernel.memory, pending);
  const location = `${continuePathOf(slug)}?${new URLSearchParams({ ticket })}`;
  return { status: 303, headers: { location, 'cache-control': 'no-store' } };
}

function relayStateOf(value: string | undefined): string | null | false {
  if (value === undefined || value === '') return null;
  return value.length <= MAX_RELAY_STATE ? value : false;
}

const sso =
  (binding: Binding) =>
  async (req: RawRequest, ctx: RequestContext): Promise<RawResponse> => {
    const org = await organizationOf(ctx, req.path);
    if (!org) return notFound();
    const relayState = relayStateOf(binding === 'redirect' ? req.query.RelayState : bodyField(req.body, 'RelayState'));
    if (relayState === false) return refused('RelayState is too long');
    try {
      const { request, provider } = await checkedRequest({
        orgId: org.id,
        ssoUrl: ssoUrlOf(ctx.kernel.config, org.name),
        binding,
        raw: req,
        providers: ctx.kernel.service('saml-idp').providers,
        memory: ctx.kernel.memory,
      });
      return await toContinue(ctx, org.name, {
        orgId: org.id,
        providerId: provider.id,
        requestId: request.id,
        relayState,
      });
    } catch (err) {
      if (!(err instanceof RefusedSamlMessage)) throw err;
      ctx.kernel.logger.warn({ org: org.id, reason: err.message }, 'saml authn request refused');
      return refused(err.message);
    }
  };

async function initiate(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  const org = await organizationOf(ctx, req.path);
  if (!org) return notFound();
  const entityId = req.query.sp;
  const provider = entityId ? await ctx.kernel.service('saml-idp').providers.byEntityId(org.id, entityId) : null;
  if (!provider || !provider.isActive) return refused('unknown service provider');
  if (!provider.allowIdpInitiated)
    return errorPage(403, 'access_denied', 'this service provider accepts only sign-ins it starts itself');
  const relayState = relayStateOf(req.query.RelayState);
  if (relayState === false) return refused('RelayState is too long');
  return toContinue(ctx, org.name, { orgId: org.id, providerId: provider.id, requestId: null, relayState });
}

export const ssoRoutes: RawRoute[] = [
  { method: 'GET', path: SSO_PATH, handler: sso('redirect') },
  // The SP's page posts from its own origin; the request's checks are this route's CSRF defence,
  // and nothing is issued here (the Response waits for the user's own session on the continue route).
  { method: 'POST', path: SSO_PATH, form: true, csrfExempt: true, handler: sso('post') },
  { method: 'GET', path: INITIATE_PATH, handler: initiate },
];
