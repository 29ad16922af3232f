/**
 * The checks an AuthnRequest passes before anyone is asked to sign in, as a pipeline of named
 * steps: the document itself, a known and active service provider of this organization, its
 * signature when the provider has a certificate (then every request must be signed), the
 * Destination, the time window, the ACS and binding the answer may go to (only the provider's
 * registered ACS, on HTTP-POST), and the request's ID used once.
 */
import type { MemoryStore } from '../../core/memory-store.js';
import type { RawRequest } from '../../core/plugin.js';
import {
  answersOnPost,
  checkPostSignature,
  checkRedirectSignature,
  readAuthnRequest,
  type AuthnRequest,
  type Binding,
} from './authn-request.js';
import type { ServiceProvider, ServiceProviders } from './service-providers.js';
import { RefusedSamlMessage } from './xml-guard.js';

/** SAML Core §3.2.1 leaves a request's lifetime to the IdP: ten minutes, a minute of clock skew. */
const REQUEST_MAX_AGE_MS = 10 * 60 * 1000;
const CLOCK_SKEW_MS = 60 * 1000;

export interface RequestSite {
  orgId: string;
  ssoUrl: string;
  binding: Binding;
  raw: RawRequest;
  providers: ServiceProviders;
  memory: MemoryStore;
}

interface Checked {
  request: AuthnRequest;
  provider: ServiceProvider;
}

const refuse = (reason: string): never => {
  throw new RefusedSamlMessage(reason);
};

const sameUrl = (a: string, b: string): boolean => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
};

async function knownProvider(site: RequestSite, request: AuthnRequest): Promise<ServiceProvider> {
  const provider = await site.providers.byEntityId(site.orgId, request.issuer);
  if (!provider || !provider.isActive) return refuse('the request comes from an unknown service provider');
  return provider;
}

function signed(site: RequestSite, { request, provider }: Checked): void {
  if (!provider.spCertPem) return;
  if (site.binding === 'redirect') checkRedirectSignature(site.raw.rawQuery ?? '', site.raw.query, provider.spCertPem);
  else checkPostSignature(request, provider.spCertPem);
  // SAML Bindings §3.4.5.2, §3.5.5.2: a signed request names its Destination.
  if (request.destination === null) refuse('a signed AuthnRequest must name its Destination');
}

function addressedHere(site: RequestSite, { request }: Checked): void {
  if (request.destination !== null && !sameUrl(request.destination, site.ssoUrl))
    refuse('the AuthnRequest is addressed to another destination');
}

function fresh({ request }: Checked): void {
  const issued = Date.parse(request.issueInstant);
  const now = Date.now();
  if (Number.isNaN(issued)) refuse('the AuthnRequest has no IssueInstant');
  if (issued > now + CLOCK_SKEW_MS || issued < now - REQUEST_MAX_AGE_MS - CLOCK_SKEW_MS)
    refuse('the AuthnRequest is outside its time window');
}

function registeredAcs({ request, provider }: Checked): void {
  if (request.acsUrl !== null && !sameUrl(request.acsUrl, provider.acsUrl))
    refuse('the AuthnRequest asks for an assertion consumer service that is not registered');
  if (!answersOnPost(request)) refuse('the AuthnRequest asks for a binding other than HTTP-POST');
}

/** A request is answered once: its ID is remembered per provider for as long as it could be accepted. */
async function usedOnce(site: RequestSite, { request, provider }: Checked): Promise<void> {
  const key = `saml-idp:request:${provider.id}:${request.id}`;
  if (!(await site.memory.setIfAbsent(key, '1', REQUEST_MAX_AGE_MS + 2 * CLOCK_SKEW_MS)))
    refuse('the AuthnRequest was already used');
}

export async function checkedRequest(site: RequestSite): Promise<Checked> {
  const encoded = site.binding === 'redirect' ? site.raw.query.SAMLRequest : bodyField(site.raw.body, 'SAMLRequest');
  const request = readAuthnRequest(site.binding, encoded);
  const checked = { request, provider: await knownProvider(site, request) };
  for (const step of [signed, addressedHere]) step(site, checked);
  for (const step of [fresh, registeredAcs]) step(checked);
  await usedOnce(site, checked);
  return checked;
}

export function bodyField(body: unknown, name: string): string | undefined {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' ? v : undefined;
}
