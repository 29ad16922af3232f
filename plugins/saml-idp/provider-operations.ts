/**
 * The SAML service provider operations: org-scoped (the super-admin, or that organization's org
 * admin; another organization's provider is "not found" whether it exists or not). The ACS URL
 * is the only place a Response is ever sent for the provider.
 */
import { invalidArgument } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse, pageOf, paginationOf } from '../../core/schema.js';
import { checkedUrl } from '../org-sso/index.js';
import {
  checkedMapping,
  checkedNameIdFormat,
  DEFAULT_MAPPED_ATTRIBUTES,
  DEFAULT_NAME_ID_FORMAT,
} from './attributes.js';
import { checkedCertificate } from './certificate.js';
import { commonNameOf } from './paths.js';
import type { SingleLogout, SloBinding } from './service-providers.js';
import {
  CreateSAMLServiceProviderRequest,
  DeleteSAMLServiceProviderRequest,
  GetSAMLServiceProviderRequest,
  ListSAMLServiceProvidersRequest,
  SAMLServiceProvider,
  SAMLServiceProviders,
  UpdateSAMLServiceProviderRequest,
} from './schemas.js';
import { administeredProvider, organizations, providerView, samlIdp } from './views.js';

/** The SingleLogoutService after an update: an empty URL ends it; a binding alone needs a URL. */
function singleLogoutOf(
  current: SingleLogout | null,
  url: string | undefined,
  binding: SloBinding | undefined,
): SingleLogout | null {
  if (url === '') return null;
  const next = url === undefined ? current?.url : checkedUrl(url, 'slo_url');
  if (next === undefined) throw invalidArgument('slo_binding needs an slo_url');
  return { url: next, binding: binding ?? current?.binding ?? 'redirect' };
}

const audit = (action: string) => ({
  action: `saml_service_provider.${action}`,
  resourceType: 'saml_service_provider',
});

export const providerOperations: AnyOperation[] = [
  defineOperation({
    name: '_create_saml_service_provider',
    kind: 'mutation',
    access: 'org-admin',
    description:
      "Registers a SAML service provider of the organization: its entity id, its assertion consumer service (the only URL responses go to), when it signs its AuthnRequests its certificate (then every request must be signed), and its SingleLogoutService (slo_url, slo_binding; single logout needs the certificate, LogoutRequests must be signed). The organization's first signing key is made here.",
    input: CreateSAMLServiceProviderRequest,
    output: SAMLServiceProvider,
    audit: { ...audit('create'), resourceId: ({ output }) => output?.id },
    handler: async (ctx, input) => {
      const org = await organizations(ctx).requireAdministered(ctx.principal, input.org_id);
      const created = await samlIdp(ctx).providers.create(org.id, {
        name: input.name,
        entityId: input.entity_id,
        acsUrl: checkedUrl(input.acs_url, 'acs_url'),
        spCertPem: input.sp_cert_pem === undefined ? null : checkedCertificate(input.sp_cert_pem, 'sp_cert_pem'),
        singleLogout:
          input.slo_url === undefined
            ? null
            : { url: checkedUrl(input.slo_url, 'slo_url'), binding: input.slo_binding ?? 'redirect' },
        nameIdFormat: checkedNameIdFormat(input.name_id_format ?? DEFAULT_NAME_ID_FORMAT),
        mappedAttributes: checkedMapping(input.mapped_attributes ?? DEFAULT_MAPPED_ATTRIBUTES),
        allowIdpInitiated: input.allow_idp_initiated ?? false,
      });
      // The metadata the SP's admin downloads next already names a signing key.
      await samlIdp(ctx).keys.signer(org.id, commonNameOf(org.name));
      return providerView(created);
    },
  }),
  defineOperation({
    name: '_update_saml_service_provider',
    kind: 'mutation',
    access: 'org-admin',
    description:
      'Updates a SAML service provider; an empty sp_cert_pem removes its certificate, an empty slo_url its single logout.',
    input: UpdateSAMLServiceProviderRequest,
    output: SAMLServiceProvider,
    audit: { ...audit('update'), resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      const existing = await administeredProvider(ctx, input.id);
      const updated = await samlIdp(ctx).providers.update(input.id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.entity_id !== undefined ? { entityId: input.entity_id } : {}),
        ...(input.acs_url !== undefined ? { acsUrl: checkedUrl(input.acs_url, 'acs_url') } : {}),
        ...(input.sp_cert_pem !== undefined
          ? { spCertPem: input.sp_cert_pem === '' ? null : checkedCertificate(input.sp_cert_pem, 'sp_cert_pem') }
          : {}),
        ...(input.slo_url !== undefined || input.slo_binding !== undefined
          ? { singleLogout: singleLogoutOf(existing.singleLogout, input.slo_url, input.slo_binding) }
          : {}),
        ...(input.name_id_format !== undefined ? { nameIdFormat: checkedNameIdFormat(input.name_id_format) } : {}),
        ...(input.mapped_attributes !== undefined ? { mappedAttributes: checkedMapping(input.mapped_attributes) } : {}),
        ...(input.allow_idp_initiated !== undefined ? { allowIdpInitiated: input.allow_idp_initiated } : {}),
        ...(input.is_active !== undefined ? { isActive: input.is_active } : {}),
      });
      return providerView(updated);
    },
  }),
  defineOperation({
    name: '_delete_saml_service_provider',
    kind: 'mutation',
    access: 'org-admin',
    description: 'Deletes a SAML service provider; its pending sign-ins fail.',
    input: DeleteSAMLServiceProviderRequest,
    output: MessageResponse,
    audit: { ...audit('delete'), resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      await administeredProvider(ctx, input.id);
      await samlIdp(ctx).providers.remove(input.id);
      return { message: 'saml service provider deleted successfully' };
    },
  }),
  defineOperation({
    name: '_saml_service_provider',
    kind: 'query',
    access: 'org-admin',
    description: 'A SAML service provider by id.',
    input: GetSAMLServiceProviderRequest,
    output: SAMLServiceProvider,
    audit: { ...audit('read'), resourceId: ({ input }) => input.id },
    rest: { method: 'POST' },
    handler: async (ctx, input) => providerView(await administeredProvider(ctx, input.id)),
  }),
  defineOperation({
    name: '_saml_service_providers',
    kind: 'query',
    access: 'org-admin',
    description: "The organization's SAML service providers, a page at a time.",
    input: ListSAMLServiceProvidersRequest,
    output: SAMLServiceProviders,
    audit: {
      action: 'saml_service_provider.list',
      resourceType: 'organization',
      resourceId: ({ input }) => input.org_id,
    },
    rest: { method: 'POST' },
    handler: async (ctx, input) => {
      await organizations(ctx).requireAdministered(ctx.principal, input.org_id);
      const page = pageOf(input.pagination);
      const { providers, total } = await samlIdp(ctx).providers.list(input.org_id, page.page, page.limit);
      return { pagination: paginationOf(page, total), saml_service_providers: providers.map(providerView) };
    },
  }),
];
