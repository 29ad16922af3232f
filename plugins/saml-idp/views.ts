/** The answers of the SAML IdP operations, and the org-scoped lookups they share. */
import type { RequestContext } from '../../core/context.js';
import type { IdpKey } from './idp-keys.js';
import { providerNotFound, type ServiceProvider } from './service-providers.js';

export const samlIdp = (ctx: RequestContext) => ctx.kernel.service('saml-idp');
export const organizations = (ctx: RequestContext) => ctx.kernel.service('organizations');

/** The provider when the caller administers its organization; the same `not_found` otherwise. */
export async function administeredProvider(ctx: RequestContext, id: string): Promise<ServiceProvider> {
  const provider = await samlIdp(ctx).providers.get(id);
  if (!provider || !organizations(ctx).administers(ctx.principal, provider.orgId)) throw providerNotFound();
  return provider;
}

export const providerView = (p: ServiceProvider) => ({
  id: p.id,
  org_id: p.orgId,
  name: p.name,
  entity_id: p.entityId,
  acs_url: p.acsUrl,
  ...(p.spCertPem ? { sp_cert_pem: p.spCertPem } : {}),
  name_id_format: p.nameIdFormat,
  mapped_attributes: p.mappedAttributes,
  allow_idp_initiated: p.allowIdpInitiated,
  is_active: p.isActive,
  ...(p.singleLogout ? { slo_url: p.singleLogout.url, slo_binding: p.singleLogout.binding } : {}),
});

export const keyView = (k: IdpKey) => ({
  id: k.id,
  org_id: k.orgId,
  cert_pem: k.certPem,
  algorithm: k.algorithm,
  status: k.status,
});
