/**
 * The organization SAML connection operations: org-scoped (the super-admin, or that
 * organization's org admin; another organization's connection is "not found" whether it exists
 * or not). The pinned IdP certificate is write-only.
 */
import type { RequestContext } from '../../core/context.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse } from '../../core/schema.js';
import { checkedCertificate } from './certificate.js';
import {
  connectionNotFound,
  DEFAULT_ATTRIBUTE_MAPPING,
  type AttributeMapping,
  type SamlConnection,
} from './connections.js';
import { acsUrlOf, spEntityIdOf } from './paths.js';
import {
  CreateOrgSAMLConnectionRequest,
  DeleteOrgSAMLConnectionRequest,
  GetOrgSAMLConnectionRequest,
  OrgSAMLConnection,
  UpdateOrgSAMLConnectionRequest,
} from './schemas.js';
import { checkedUrl } from '../org-sso/index.js';

const saml = (ctx: RequestContext) => ctx.kernel.service('org-saml');
const organizations = (ctx: RequestContext) => ctx.kernel.service('organizations');

/** The connection by its id or its organization's when the caller administers that organization; the same `not_found` otherwise. */
const administeredConnection = (ctx: RequestContext, by: { id?: string | undefined; orgId?: string | undefined }) =>
  organizations(ctx).administeredRecord(ctx.principal, by, saml(ctx).connections, connectionNotFound);

async function view(ctx: RequestContext, c: SamlConnection) {
  const slug = (await organizations(ctx).get(c.orgId))?.name ?? '';
  return {
    id: c.id,
    org_id: c.orgId,
    name: c.name,
    idp_entity_id: c.idpEntityId,
    idp_sso_url: c.idpSsoUrl,
    sp_entity_id: c.spEntityId ?? spEntityIdOf(ctx.kernel.config, slug),
    acs_url: c.acsUrl ?? acsUrlOf(ctx.kernel.config, slug),
    attribute_mapping: c.attributeMapping,
    allow_idp_initiated: c.allowIdpInitiated,
    is_active: c.isActive,
  };
}

const mappingOf = (base: AttributeMapping, patch: Partial<AttributeMapping> | undefined): AttributeMapping => ({
  ...base,
  ...Object.fromEntries(Object.entries(patch ?? {}).filter(([, v]) => v !== undefined)),
});

export const samlConnectionOperations: AnyOperation[] = [
  defineOperation({
    name: '_create_org_saml_connection',
    kind: 'mutation',
    access: 'org-admin',
    description: "Connects the organization to its SAML identity provider, pinning the IdP's signing certificate.",
    input: CreateOrgSAMLConnectionRequest,
    output: OrgSAMLConnection,
    audit: {
      action: 'org_saml_connection.create',
      resourceType: 'org_saml_connection',
      resourceId: ({ output }) => output?.id,
    },
    handler: async (ctx, input) => {
      await organizations(ctx).requireAdministered(ctx.principal, input.org_id);
      const created = await saml(ctx).connections.create(input.org_id, {
        name: input.name,
        idpEntityId: input.idp_entity_id,
        idpSsoUrl: checkedUrl(input.idp_sso_url, 'idp_sso_url'),
        idpCertificate: checkedCertificate(input.idp_certificate),
        spEntityId: input.sp_entity_id ?? null,
        acsUrl: input.acs_url === undefined ? null : checkedUrl(input.acs_url, 'acs_url'),
        attributeMapping: mappingOf(DEFAULT_ATTRIBUTE_MAPPING, input.attribute_mapping),
        allowIdpInitiated: input.allow_idp_initiated ?? false,
      });
      return view(ctx, created);
    },
  }),
  defineOperation({
    name: '_update_org_saml_connection',
    kind: 'mutation',
    access: 'org-admin',
    description: 'Updates an organization SAML connection; a new IdP certificate replaces the pinned one.',
    input: UpdateOrgSAMLConnectionRequest,
    output: OrgSAMLConnection,
    audit: {
      action: 'org_saml_connection.update',
      resourceType: 'org_saml_connection',
      resourceId: ({ input }) => input.id,
    },
    handler: async (ctx, input) => {
      const current = await administeredConnection(ctx, { id: input.id });
      const updated = await saml(ctx).connections.update(input.id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.idp_entity_id !== undefined ? { idpEntityId: input.idp_entity_id } : {}),
        ...(input.idp_sso_url !== undefined ? { idpSsoUrl: checkedUrl(input.idp_sso_url, 'idp_sso_url') } : {}),
        ...(input.idp_certificate !== undefined ? { idpCertificate: checkedCertificate(input.idp_certificate) } : {}),
        ...(input.sp_entity_id !== undefined ? { spEntityId: input.sp_entity_id } : {}),
        ...(input.acs_url !== undefined ? { acsUrl: checkedUrl(input.acs_url, 'acs_url') } : {}),
        ...(input.attribute_mapping !== undefined
          ? { attributeMapping: mappingOf(current.attributeMapping, input.attribute_mapping) }
          : {}),
        ...(input.allow_idp_initiated !== undefined ? { allowIdpInitiated: input.allow_idp_initiated } : {}),
        ...(input.is_active !== undefined ? { isActive: input.is_active } : {}),
      });
      return view(ctx, updated);
    },
  }),
  defineOperation({
    name: '_delete_org_saml_connection',
    kind: 'mutation',
    access: 'org-admin',
    description: 'Deletes an organization SAML connection; users it created keep their accounts.',
    input: DeleteOrgSAMLConnectionRequest,
    output: MessageResponse,
    audit: {
      action: 'org_saml_connection.delete',
      resourceType: 'org_saml_connection',
      resourceId: ({ input }) => input.id,
    },
    handler: async (ctx, input) => {
      await administeredConnection(ctx, { id: input.id });
      await saml(ctx).connections.remove(input.id);
      return { message: 'saml connection deleted successfully' };
    },
  }),
  defineOperation({
    name: '_org_saml_connection',
    kind: 'query',
    access: 'org-admin',
    description: "An organization's SAML connection, by its id or the organization's.",
    input: GetOrgSAMLConnectionRequest,
    output: OrgSAMLConnection,
    audit: {
      action: 'org_saml_connection.read',
      resourceType: 'org_saml_connection',
      resourceId: ({ input, output }) => output?.id ?? input.id ?? input.org_id ?? '',
    },
    rest: { method: 'POST' },
    handler: async (ctx, input) => view(ctx, await administeredConnection(ctx, { id: input.id, orgId: input.org_id })),
  }),
];
