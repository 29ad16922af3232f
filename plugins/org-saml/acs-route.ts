/**
 * The assertion consumer service, `POST /oauth/saml/{org_slug}/acs` (HTTP-POST binding, SAML
 * Bindings §3.5), as a pipeline of named checks: the document itself (no DTD), the organization's
 * active connection, node-saml's validation (signature against the pinned certificate, issuer,
 * audience, time window, InResponseTo), the recipient and destination, the assertion id used once,
 * the mapped profile. The verified identity is parked under a single-use ticket and the browser
 * goes on to `GET /oauth/saml/{org_slug}/acs?ticket=…`, a same-site request carrying the cookie
 * that ties an SP-initiated login to the browser that started it; there the user is found or
 * created just in time, joined to the organization, and signed in through the social service.
 */
import { createHash } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import { recordLoginRefusal } from '../sign-in/index.js';
import { SocialLoginFailure, type LoginRequest } from '../social/index.js';
import { assertionIdOf, checkIssuer, checkRecipient, useAssertionOnce } from './assertion-checks.js';
import { activeConnection } from './connection-of.js';
import type { SamlConnection } from './connections.js';
import { ACS_PATH, slugOf } from './paths.js';
import { profileOf } from './profile.js';
import { parkVerified, takePending, takeVerified } from './relay-state.js';
import { endpointsOf, MAX_ASSERTION_AGE_MS, serviceProviderOf, type Profile } from './service-provider.js';
import { decodedResponse, RefusedSamlResponse } from './xml-guard.js';

/** The sign-in method and identity namespace of an IdP: its entity id's digest, so a changed IdP never reaches old identities. */
export const providerOf = (idpEntityId: string) =>
  `saml:${createHash('sha256').update(idpEntityId).digest('hex').slice(0, 40)}`;

const fields = (body: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (body && typeof body === 'object')
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  return out;
};

/** The Response's Destination attribute (parsed from a document already free of any DTD). */
function destinationOf(xml: string): string | null {
  const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  return root?.hasAttribute('Destination') ? root.getAttribute('Destination') : null;
}

async function validated(ctx: RequestContext, connection: SamlConnection, slug: string, body: Record<string, string>) {
  const xml = decodedResponse(body.SAMLResponse);
  const endpoints = endpointsOf(ctx.kernel.config, connection, slug);
  const sp = serviceProviderOf(ctx.kernel.memory, connection, endpoints);
  let profile: Profile | null;
  try {
    profile = (await sp.validatePostResponseAsync({ SAMLResponse: body.SAMLResponse! })).profile;
  } catch (err) {
    throw new RefusedSamlResponse((err as Error).message);
  }
  if (!profile) throw new RefusedSamlResponse('the response carries no assertion');
  checkIssuer(profile, connection.idpEntityId);
  checkRecipient(profile, destinationOf(xml), endpoints.acsUrl);
  await useAssertionOnce(ctx.kernel.memory, connection.id, assertionIdOf(profile), MAX_ASSERTION_AGE_MS * 2);
  return profile;
}

/** The `method` of a refused SAML login's audit record. */
const SAML_METHOD = 'org_saml';

async function consume(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  const social = ctx.kernel.service('social');
  const slug = slugOf(req.path);
  const body = fields(req.body);
  const connection = await activeConnection(ctx, slug);
  if (!connection) return social.errorPage(404, 'not_found', 'no SAML connection for this organization');
  let profile: Profile;
  try {
    profile = await validated(ctx, connection, slug, body);
  } catch (err) {
    if (!(err instanceof RefusedSamlResponse)) throw err;
    ctx.kernel.logger.warn({ connection: connection.id, reason: err.message }, 'saml response refused');
    // A refused login in the audit log (plugins/sign-in/audit.ts).
    await recordLoginRefusal(ctx, { method: SAML_METHOD, reason: 'invalid_saml_response' });
    return social.errorPage(400, 'invalid_saml_response', "the identity provider's answer could not be verified");
  }
  const requestId = typeof profile.inResponseTo === 'string' ? profile.inResponseTo : null;
  let relayRequest: LoginRequest | null = null;
  if (requestId === null) {
    // IdP-initiated (passed node-saml only because the connection allows it): the RelayState names
    // the application's redirect target, checked by the same rules as /oauth_login.
    try {
      relayRequest = await social.parseLoginRequest(ctx, {
        redirect_uri: body.RelayState,
        state: createHash('sha256').update(assertionIdOf(profile)).digest('base64url'),
      });
    } catch (err) {
      if (err instanceof SocialLoginFailure) return err.response;
      throw err;
    }
  }
  const saml = ctx.kernel.service('org-saml');
  const mapped = await profileOf(profile, connection.attributeMapping, (domain) =>
    saml.isOrganizationDomain(connection.orgId, domain),
  ).catch((err: unknown) => {
    if (err instanceof RefusedSamlResponse) return null;
    throw err;
  });
  if (!mapped) {
    await recordLoginRefusal(ctx, { method: SAML_METHOD, reason: 'no_usable_subject' });
    return social.errorPage(400, 'invalid_saml_response', 'the assertion has no usable subject');
  }
  const ticket = await parkVerified(ctx, {
    connectionId: connection.id,
    slug,
    requestId,
    profile: mapped,
    ...(relayRequest ? { request: relayRequest } : {}),
  });
  const next = `${req.path}?${new URLSearchParams({ ticket })}`;
  return { status: 303, headers: { location: next, 'cache-control': 'no-store' } };
}

/** A ticket or request id that does not lead back to this browser's login: refused and audited, as the POST step's refusals are. */
async function unmatched(ctx: RequestContext): Promise<RawResponse> {
  await recordLoginRefusal(ctx, { method: SAML_METHOD, reason: 'invalid_state' });
  return ctx.kernel
    .service('social')
    .errorPage(400, 'invalid_state', 'the login could not be matched to this browser; start it again');
}

async function complete(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  const social = ctx.kernel.service('social');
  const slug = slugOf(req.path);
  const verified = await takeVerified(ctx, req.query.ticket);
  if (!verified || verified.slug !== slug) return unmatched(ctx);
  let request: LoginRequest;
  if (verified.requestId !== null) {
    const pending = await takePending(ctx, verified.requestId);
    if (!pending || pending.slug !== slug || pending.connectionId !== verified.connectionId) return unmatched(ctx);
    request = pending.request;
  } else if (verified.request) {
    request = verified.request;
  } else {
    return unmatched(ctx);
  }
  const connection = await activeConnection(ctx, slug);
  if (!connection || connection.id !== verified.connectionId) {
    await recordLoginRefusal(ctx, { method: SAML_METHOD, reason: 'access_denied' });
    return social.fail(request, 'access_denied', 'the single sign-on connection changed during the login');
  }
  const organizations = ctx.kernel.service('organizations');
  return social.complete(ctx, providerOf(connection.idpEntityId), verified.profile, request, {
    // Just-in-time membership: whoever the organization's own identity provider signs in belongs to it.
    beforeSignIn: async (user) => {
      if (user.revokedTimestamp !== null) throw new ServiceError('permission_denied', 'user access has been revoked');
      if (!(await organizations.isMember(connection.orgId, user.id)))
        await organizations.addMember(connection.orgId, user.id);
    },
  });
}

export const acsRoutes: RawRoute[] = [
  // The IdP posts from its own origin; the signed assertion and the request id are this route's CSRF defence.
  { method: 'POST', path: ACS_PATH, form: true, csrfExempt: true, handler: consume },
  { method: 'GET', path: ACS_PATH, handler: complete },
];
