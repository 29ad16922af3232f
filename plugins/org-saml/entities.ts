/**
 * One upstream SAML identity provider per organization (wire type OrgSAMLConnection): its entity
 * id, its single sign-on URL and the certificate pinned to check its signatures.
 */
import { defineEntity } from '@mikro-orm/core';

export interface SamlConnectionRow {
  id: string;
  orgId: string;
  name: string;
  idpEntityId: string;
  idpSsoUrl: string;
  idpCertificate: string;
  spEntityId: string | null;
  acsUrl: string | null;
  attributeMapping: string;
  allowIdpInitiated: boolean;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

export const SamlConnectionEntity = defineEntity({
  name: 'LatchkeyOrgSamlConnection',
  tableName: 'latchkey_org_saml_connections',
  properties: (p) => ({
    id: p.string().primary().length(64),
    orgId: p.string().length(64).fieldName('org_id').unique(),
    name: p.string().length(256),
    idpEntityId: p.string().length(1024).fieldName('idp_entity_id'),
    idpSsoUrl: p.string().length(2048).fieldName('idp_sso_url'),
    idpCertificate: p.text().fieldName('idp_certificate'),
    spEntityId: p.string().length(1024).nullable().fieldName('sp_entity_id'),
    acsUrl: p.string().length(2048).nullable().fieldName('acs_url'),
    attributeMapping: p.text().fieldName('attribute_mapping'),
    allowIdpInitiated: p.boolean().fieldName('allow_idp_initiated'),
    isActive: p.boolean().fieldName('is_active'),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});
