/** Schemas of the organization SAML connection operations (wire types OrgSAMLConnection, CreateOrgSAMLConnectionRequest). */
import { Bool, Id, InputObject, OutputObject, Type } from '../../core/schema.js';

const name = () => Type.String({ minLength: 1, maxLength: 256 });
const entityId = () => Type.String({ minLength: 1, maxLength: 1024 });
const url = () => Type.String({ minLength: 1, maxLength: 2048 });
const certificate = () => Type.String({ minLength: 1, maxLength: 16384 });
const attributeName = () => Type.String({ minLength: 1, maxLength: 256 });

export const SAMLAttributeMapping = OutputObject('SAMLAttributeMapping', {
  email: Type.String(),
  given_name: Type.String(),
  family_name: Type.String(),
});

const AttributeMappingInput = InputObject('SAMLAttributeMappingInput', {
  email: Type.Optional(attributeName()),
  given_name: Type.Optional(attributeName()),
  family_name: Type.Optional(attributeName()),
});

export const OrgSAMLConnection = OutputObject('OrgSAMLConnection', {
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  idp_entity_id: Type.String(),
  idp_sso_url: Type.String(),
  sp_entity_id: Type.String(),
  acs_url: Type.String(),
  attribute_mapping: SAMLAttributeMapping,
  allow_idp_initiated: Bool(),
  is_active: Bool(),
});

export const CreateOrgSAMLConnectionRequest = InputObject('CreateOrgSAMLConnectionRequest', {
  org_id: Id(),
  name: name(),
  idp_entity_id: entityId(),
  idp_sso_url: url(),
  idp_certificate: certificate(),
  sp_entity_id: Type.Optional(entityId()),
  acs_url: Type.Optional(url()),
  attribute_mapping: Type.Optional(AttributeMappingInput),
  allow_idp_initiated: Type.Optional(Bool()),
});

export const UpdateOrgSAMLConnectionRequest = InputObject('UpdateOrgSAMLConnectionRequest', {
  id: Id(),
  name: Type.Optional(name()),
  idp_entity_id: Type.Optional(entityId()),
  idp_sso_url: Type.Optional(url()),
  idp_certificate: Type.Optional(certificate()),
  sp_entity_id: Type.Optional(entityId()),
  acs_url: Type.Optional(url()),
  attribute_mapping: Type.Optional(AttributeMappingInput),
  allow_idp_initiated: Type.Optional(Bool()),
  is_active: Type.Optional(Bool()),
});

export const DeleteOrgSAMLConnectionRequest = InputObject('DeleteOrgSAMLConnectionRequest', { id: Id() });

export const GetOrgSAMLConnectionRequest = InputObject('GetOrgSAMLConnectionRequest', {
  id: Type.Optional(Id()),
  org_id: Type.Optional(Id()),
});
