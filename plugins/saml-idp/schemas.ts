/** Schemas of the SAML IdP operations (SAMLServiceProvider, SAMLIDPKey, SAMLSPMetadataParseResult). */
import { Bool, Id, InputObject, OutputObject, Pagination, PaginationRequest, Type } from '../../core/schema.js';

const name = () => Type.String({ minLength: 1, maxLength: 256 });
const entityId = () => Type.String({ minLength: 1, maxLength: 1024 });
const url = () => Type.String({ minLength: 1, maxLength: 2048 });
const certificate = () => Type.String({ minLength: 1, maxLength: 16384 });
const nameIdFormat = () => Type.String({ minLength: 1, maxLength: 256 });
const sloBinding = () =>
  Type.Union([Type.Literal('redirect'), Type.Literal('post')], {
    description: 'The binding of slo_url: redirect (HTTP-Redirect, the default) or post (HTTP-POST).',
  });

export const SAMLMappedAttribute = OutputObject('SAMLMappedAttribute', {
  name: Type.String(),
  field: Type.String(),
});

const MappedAttributeInput = InputObject('SAMLMappedAttributeInput', {
  // An XML attribute value in the assertion (SAML Core §2.7.3.1 Name): printable, no markup.
  name: Type.String({ minLength: 1, maxLength: 256, pattern: '^[^<>&"\'\\s]+$' }),
  field: Type.String({ minLength: 1, maxLength: 64 }),
});
const mappedAttributes = () => Type.Array(MappedAttributeInput, { maxItems: 32 });

export const SAMLServiceProvider = OutputObject('SAMLServiceProvider', {
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  entity_id: Type.String(),
  acs_url: Type.String(),
  sp_cert_pem: Type.Optional(Type.String()),
  name_id_format: Type.String(),
  mapped_attributes: Type.Array(SAMLMappedAttribute),
  allow_idp_initiated: Bool(),
  is_active: Bool(),
  slo_url: Type.Optional(Type.String()),
  slo_binding: Type.Optional(Type.String()),
});

export const SAMLServiceProviders = OutputObject('SAMLServiceProviders', {
  pagination: Pagination,
  saml_service_providers: Type.Array(SAMLServiceProvider),
});

export const CreateSAMLServiceProviderRequest = InputObject('CreateSAMLServiceProviderRequest', {
  org_id: Id(),
  name: name(),
  entity_id: entityId(),
  acs_url: url(),
  sp_cert_pem: Type.Optional(certificate()),
  name_id_format: Type.Optional(nameIdFormat()),
  mapped_attributes: Type.Optional(mappedAttributes()),
  allow_idp_initiated: Type.Optional(Bool()),
  slo_url: Type.Optional(url()),
  slo_binding: Type.Optional(sloBinding()),
});

export const UpdateSAMLServiceProviderRequest = InputObject('UpdateSAMLServiceProviderRequest', {
  id: Id(),
  name: Type.Optional(name()),
  entity_id: Type.Optional(entityId()),
  acs_url: Type.Optional(url()),
  sp_cert_pem: Type.Optional(Type.String({ maxLength: 16384, description: 'An empty value removes the certificate.' })),
  name_id_format: Type.Optional(nameIdFormat()),
  mapped_attributes: Type.Optional(mappedAttributes()),
  allow_idp_initiated: Type.Optional(Bool()),
  is_active: Type.Optional(Bool()),
  slo_url: Type.Optional(
    Type.String({ maxLength: 2048, description: 'An empty value ends the single logout of the provider.' }),
  ),
  slo_binding: Type.Optional(sloBinding()),
});

export const DeleteSAMLServiceProviderRequest = InputObject('DeleteSAMLServiceProviderRequest', { id: Id() });
export const GetSAMLServiceProviderRequest = InputObject('GetSAMLServiceProviderRequest', { id: Id() });

export const ListSAMLServiceProvidersRequest = InputObject('ListSAMLServiceProvidersRequest', {
  org_id: Id(),
  pagination: Type.Optional(PaginationRequest),
});

export const SAMLIDPKey = OutputObject('SAMLIDPKey', {
  id: Type.String(),
  org_id: Type.String(),
  cert_pem: Type.String(),
  algorithm: Type.String(),
  status: Type.String({ description: 'current (signs, published), active (published only) or retired.' }),
});

export const SAMLIDPKeys = OutputObject('SAMLIDPKeys', { saml_idp_keys: Type.Array(SAMLIDPKey) });

export const RotateSAMLIDPCertRequest = InputObject('RotateSAMLIDPCertRequest', { org_id: Id() });
export const RetireSAMLIDPKeyRequest = InputObject('RetireSAMLIDPKeyRequest', { id: Id() });
export const SAMLIDPKeysRequest = InputObject('SAMLIDPKeysRequest', { org_id: Id() });

export const ImportSAMLSPMetadataRequest = InputObject('ImportSAMLSPMetadataRequest', {
  // Optional: the import stores nothing, so a super-admin may read metadata for no organization;
  // an organization admin names one it administers.
  org_id: Type.Optional(Id()),
  metadata_xml: Type.String({ minLength: 1, maxLength: 262144 }),
});

export const SAMLSPMetadataParseResult = OutputObject('SAMLSPMetadataParseResult', {
  entity_id: Type.String(),
  acs_url: Type.String(),
  certificate: Type.Optional(Type.String()),
  slo_url: Type.Optional(Type.String()),
  slo_binding: Type.Optional(Type.String()),
});
