/**
 * The organization's IdP signing keys (rotate, retire, list) and the SP metadata import, all
 * org-scoped. Key answers carry the certificate only; the private key never leaves the store.
 */
import { ServiceError } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { keyNotFound } from './idp-keys.js';
import { parseSpMetadata } from './metadata-import.js';
import { commonNameOf } from './paths.js';
import {
  ImportSAMLSPMetadataRequest,
  RetireSAMLIDPKeyRequest,
  RotateSAMLIDPCertRequest,
  SAMLIDPKey,
  SAMLIDPKeys,
  SAMLIDPKeysRequest,
  SAMLSPMetadataParseResult,
} from './schemas.js';
import { keyView, organizations, samlIdp } from './views.js';

export const keyOperations: AnyOperation[] = [
  defineOperation({
    name: '_rotate_saml_idp_cert',
    kind: 'mutation',
    access: 'org-admin',
    description:
      "Makes a new current signing key pair and certificate for the organization's IdP; the previous current key is demoted to active (still published in the metadata, no longer signing).",
    input: RotateSAMLIDPCertRequest,
    output: SAMLIDPKey,
    audit: { action: 'saml_idp_key.rotate', resourceType: 'saml_idp_key', resourceId: ({ output }) => output?.id },
    handler: async (ctx, input) => {
      const org = await organizations(ctx).requireAdministered(ctx.principal, input.org_id);
      return keyView(await samlIdp(ctx).keys.rotate(org.id, commonNameOf(org.name)));
    },
  }),
  defineOperation({
    name: '_retire_saml_idp_key',
    kind: 'mutation',
    access: 'org-admin',
    description:
      'Retires a published key that no longer signs (status active): it leaves the metadata. The current key cannot be retired.',
    input: RetireSAMLIDPKeyRequest,
    output: SAMLIDPKey,
    audit: { action: 'saml_idp_key.retire', resourceType: 'saml_idp_key', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      const key = await samlIdp(ctx).keys.get(input.id);
      if (!key || !organizations(ctx).administers(ctx.principal, key.orgId)) throw keyNotFound();
      return keyView(await samlIdp(ctx).keys.retire(key.id));
    },
  }),
  defineOperation({
    name: '_saml_idp_keys',
    kind: 'query',
    access: 'org-admin',
    description: "The organization's IdP signing keys with their status, newest first.",
    input: SAMLIDPKeysRequest,
    output: SAMLIDPKeys,
    audit: { action: 'saml_idp_key.list', resourceType: 'organization', resourceId: ({ input }) => input.org_id },
    rest: { method: 'POST' },
    handler: async (ctx, input) => {
      await organizations(ctx).requireAdministered(ctx.principal, input.org_id);
      return { saml_idp_keys: (await samlIdp(ctx).keys.all(input.org_id)).map(keyView) };
    },
  }),
  defineOperation({
    name: '_import_saml_sp_metadata',
    // A mutation in the GraphQL schema, where the published clients send it.
    kind: 'mutation',
    access: 'org-admin',
    description:
      'Reads pasted SAML SP metadata XML: its entity id, HTTP-POST assertion consumer service, signing certificate and SingleLogoutService (slo_url, slo_binding). Creates no record and fetches nothing.',
    input: ImportSAMLSPMetadataRequest,
    output: SAMLSPMetadataParseResult,
    audit: {
      action: 'saml_service_provider.import_metadata',
      resourceType: 'organization',
      resourceId: ({ input }) => input.org_id,
    },
    rest: { method: 'POST' },
    handler: async (ctx, input) => {
      if (input.org_id !== undefined) await organizations(ctx).requireAdministered(ctx.principal, input.org_id);
      else if (ctx.principal?.kind !== 'admin')
        throw new ServiceError('invalid_argument', 'org_id is required for an organization admin');
      const parsed = parseSpMetadata(input.metadata_xml);
      return {
        entity_id: parsed.entityId,
        acs_url: parsed.acsUrl,
        ...(parsed.certificate ? { certificate: parsed.certificate } : {}),
        ...(parsed.singleLogout ? { slo_url: parsed.singleLogout.url, slo_binding: parsed.singleLogout.binding } : {}),
      };
    },
  }),
];
