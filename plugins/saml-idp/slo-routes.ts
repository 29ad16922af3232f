/**
 * SP-initiated single logout (SAML Profiles §4.4): `GET /saml/idp/{org_slug}/slo` (HTTP-Redirect
 * binding) and `POST` on the same path (HTTP-POST binding) take a provider's signed LogoutRequest
 * through its checks (logout-request.ts), end this browser's Latchkey session when it is the
 * principal's, and send the browser back to the provider's SingleLogoutService with a signed
 * LogoutResponse (logout-response.ts). A refused request ends nothing and answers a 4xx page.
 */
import { recordAudit } from '../../core/audit.js';
import type { RequestContext } from '../../core/context.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import type { SessionRecord } from '../sessions/index.js';
import { NAME_ID_FORMATS, nameIdOf } from './attributes.js';
import type { Binding } from './authn-request.js';
import { sessionIndexOf } from './idp-entity.js';
import { checkedLogoutRequest, type CheckedLogout } from './logout-request.js';
import { signedLogoutResponse } from './logout-response.js';
import { organizationOf } from './organization-of.js';
import { errorPage, postForm } from './pages.js';
import { commonNameOf, idpEndpointsOf, SLO_PATH } from './paths.js';
import { bodyField } from './request-checks.js';
import { RefusedSamlMessage } from './xml-guard.js';

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
/** SAML Bindings §3.4.3 bounds RelayState at 80 bytes; longer values some SPs send are kept up to this. */
const MAX_RELAY_STATE = 1024;

const notFound = () => errorPage(404, 'not_found', 'no SAML identity provider for this organization');
const refused = (reason: string) => errorPage(400, 'invalid_saml_request', reason);

/**
 * Whether the browser's session is the one the request names: the principal's NameID (a
 * transient one is never the same twice, so there the SessionIndex alone decides) and, when the
 * request names sessions, one of their SessionIndex values.
 */
async function named(ctx: RequestContext, session: SessionRecord, { request, provider }: CheckedLogout) {
  const index = sessionIndexOf(session.family ?? session.id);
  if (request.sessionIndexes.length > 0 && !request.sessionIndexes.includes(index)) return false;
  if (provider.nameIdFormat === NAME_ID_FORMATS.transient) return request.sessionIndexes.length > 0;
  const user = await ctx.kernel.service('users').findById(session.userId);
  return user !== null && request.nameId !== null && nameIdOf(user, provider.nameIdFormat) === request.nameId;
}

const slo =
  (binding: Binding) =>
  async (req: RawRequest, ctx: RequestContext): Promise<RawResponse> => {
    const org = await organizationOf(ctx, req.path);
    if (!org) return notFound();
    const relayState = binding === 'redirect' ? req.query.RelayState : bodyField(req.body, 'RelayState');
    if (relayState !== undefined && relayState.length > MAX_RELAY_STATE) return refused('RelayState is too long');
    const kernel = ctx.kernel;
    const endpoints = idpEndpointsOf(kernel.config, org.name);
    const idp = kernel.service('saml-idp');
    let checked: CheckedLogout;
    try {
      checked = await checkedLogoutRequest({
        orgId: org.id,
        sloUrl: endpoints.sloUrl,
        binding,
        raw: req,
        providers: idp.providers,
        memory: kernel.memory,
      });
    } catch (err) {
      if (!(err instanceof RefusedSamlMessage)) throw err;
      kernel.logger.warn({ org: org.id, reason: err.message }, 'saml logout request refused');
      return refused(err.message);
    }
    // A browser without the named session has nothing of it left to end: the logout succeeded.
    const sessions = kernel.service('sessions');
    const session = await sessions.fromRequest(ctx);
    if (session && (await named(ctx, session, checked))) {
      await sessions.revoke(session.userId, session.id);
      sessions.clearCookies(ctx);
      await recordAudit(ctx, {
        action: 'user.logout',
        resourceType: 'session',
        resourceId: session.id,
        actor: { kind: 'user', id: session.userId },
        metadata: { endpoint: 'saml_slo', saml_service_provider_id: checked.provider.id },
      });
    }
    const answer = signedLogoutResponse(
      endpoints,
      await idp.keys.signer(org.id, commonNameOf(org.name)),
      checked.provider,
      { inResponseTo: checked.request.id, status: SUCCESS, relayState: relayState || null },
    );
    if (answer.binding === 'redirect')
      return { status: 302, headers: { location: answer.location, 'cache-control': 'no-store' } };
    return postForm(checked.provider.singleLogout.url, {
      SAMLResponse: answer.samlResponse,
      ...(relayState ? { RelayState: relayState } : {}),
    });
  };

export const sloRoutes: RawRoute[] = [
  { method: 'GET', path: SLO_PATH, handler: slo('redirect') },
  // The SP's page posts from its own origin; the request's signature is this route's CSRF defence.
  { method: 'POST', path: SLO_PATH, form: true, csrfExempt: true, handler: slo('post') },
];
