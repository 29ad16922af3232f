/**
 * An SP-initiated LogoutRequest (SAML Core §3.7.1) as it arrives on the HTTP-Redirect or HTTP-POST
 * binding, read as an AuthnRequest is (authn-request.ts: no DTD, size bounds, DEFLATE on the
 * redirect binding) and checked before anything ends: a known, active provider of this
 * organization with a SingleLogoutService and a certificate, a signature by that certificate (SAML
 * Profiles §4.4.4.1 wants the request signed), addressed to this IdP's logout service, within its
 * time window, and used once.
 */
import type { MemoryStore } from '../../core/memory-store.js';
import type { RawRequest } from '../../core/plugin.js';
import {
  ASSERTION,
  checkPostSignature,
  checkRedirectSignature,
  childrenOf,
  decoded,
  parsed,
  requestHeader,
  type Binding,
} from './authn-request.js';
import { bodyField } from './request-checks.js';
import type { ServiceProvider, ServiceProviders, SingleLogout } from './service-providers.js';
import { RefusedSamlMessage } from './xml-guard.js';

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
/** As for AuthnRequests: ten minutes, a minute of clock skew. */
const REQUEST_MAX_AGE_MS = 10 * 60 * 1000;
const CLOCK_SKEW_MS = 60 * 1000;

export interface LogoutRequest {
  id: string;
  issuer: string;
  issueInstant: string;
  destination: string | null;
  notOnOrAfter: string | null;
  nameId: string | null;
  /** The SessionIndex values of the sessions to end; none: every session of the principal. */
  sessionIndexes: string[];
  xml: string;
}

export interface LogoutSite {
  orgId: string;
  sloUrl: string;
  binding: Binding;
  raw: RawRequest;
  providers: ServiceProviders;
  memory: MemoryStore;
}

const refuse = (reason: string): never => {
  throw new RefusedSamlMessage(reason);
};

const text = (el: { textContent: string | null }) => (el.textContent ?? '').trim();

export function readLogoutRequest(binding: Binding, encoded: string | undefined): LogoutRequest {
  const xml = decoded(binding, encoded);
  const root = parsed(xml, 'LogoutRequest');
  const header = requestHeader(root, 'LogoutRequest');
  const nameIds = childrenOf(root, ASSERTION, 'NameID');
  if (nameIds.length > 1) return refuse('the LogoutRequest names more than one principal');
  return {
    ...header,
    notOnOrAfter: root.getAttribute('NotOnOrAfter'),
    nameId: nameIds.length === 1 ? text(nameIds[0]!) : null,
    sessionIndexes: childrenOf(root, PROTOCOL, 'SessionIndex').map(text),
    xml,
  };
}

const sameUrl = (a: string, b: string): boolean => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
};

function inTime(request: LogoutRequest): void {
  const issued = Date.parse(request.issueInstant);
  const now = Date.now();
  if (Number.isNaN(issued)) refuse('the LogoutRequest has no IssueInstant');
  if (issued > now + CLOCK_SKEW_MS || issued < now - REQUEST_MAX_AGE_MS - CLOCK_SKEW_MS)
    refuse('the LogoutRequest is outside its time window');
  // SAML Core §3.7.1: past NotOnOrAfter the request must not be acted upon.
  if (request.notOnOrAfter !== null) {
    const until = Date.parse(request.notOnOrAfter);
    if (Number.isNaN(until) || now - CLOCK_SKEW_MS >= until) refuse('the LogoutRequest has expired');
  }
}

export interface CheckedLogout {
  request: LogoutRequest;
  provider: ServiceProvider & { singleLogout: SingleLogout };
}

export async function checkedLogoutRequest(site: LogoutSite): Promise<CheckedLogout> {
  const encoded = site.binding === 'redirect' ? site.raw.query.SAMLRequest : bodyField(site.raw.body, 'SAMLRequest');
  const request = readLogoutRequest(site.binding, encoded);
  const provider = await site.providers.byEntityId(site.orgId, request.issuer);
  if (!provider || !provider.isActive) return refuse('the request comes from an unknown service provider');
  const { singleLogout, spCertPem } = provider;
  if (!singleLogout) return refuse('the service provider has no SingleLogoutService');
  // A LogoutRequest ends the browser's session: only the provider's own signature may ask for it.
  if (!spCertPem) return refuse('single logout needs the service provider certificate to check the request');
  if (site.binding === 'redirect')
    checkRedirectSignature(site.raw.rawQuery ?? '', site.raw.query, spCertPem, 'LogoutRequest');
  else checkPostSignature(request, spCertPem, 'LogoutRequest');
  // SAML Bindings §3.4.5.2, §3.5.5.2: a signed request names its Destination.
  if (request.destination === null || !sameUrl(request.destination, site.sloUrl))
    refuse('the LogoutRequest is not addressed to this logout service');
  inTime(request);
  const key = `saml-idp:logout:${provider.id}:${request.id}`;
  if (!(await site.memory.setIfAbsent(key, '1', REQUEST_MAX_AGE_MS + 2 * CLOCK_SKEW_MS)))
    refuse('the LogoutRequest was already used');
  return { request, provider: { ...provider, singleLogout } };
}
