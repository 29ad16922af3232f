/**
 * The SAML identity provider's records: the service providers an organization registers (their
 * entity id, the one assertion consumer service answers go to, the certificate that signs their
 * AuthnRequests) and the organization's signing keys, whose private halves are sealed at rest.
 */
import { defineEntity } from '@mikro-orm/core';

export interface ServiceProviderRow {
  id: string;
  orgId: string;
  name: string;
  entityId: string;
  /** SHA-256 hex of `entityId`: the unique index's column (an entity id may be longer than an index key). */
  entityKey: string;
  acsUrl: string;
  spCertPem: string | null;
  /** Its SingleLogoutService, where LogoutResponses go; null: no single logout. */
  sloUrl?: string | null;
  /** The binding of `sloUrl`: `redirect` or `post`. */
  sloBinding?: string | null;
  nameIdFormat: string;
  /** JSON text: [{ name, field }]. */
  mappedAttributes: string;
  allowIdpInitiated: boolean;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

export const ServiceProviderEntity = defineEntity({
  name: 'LatchkeySamlServiceProvider',
  tableName: 'latchkey_saml_service_providers',
  properties: (p) => ({
    id: p.string().primary().length(64),
    orgId: p.string().length(64).fieldName('org_id').index(),
    name: p.string().length(256),
    entityId: p.string().length(1024).fieldName('entity_id'),
    entityKey: p.string().length(64).fieldName('entity_key'),
    acsUrl: p.string().length(2048).fieldName('acs_url'),
    spCertPem: p.text().nullable().fieldName('sp_cert_pem'),
    sloUrl: p.string().length(2048).nullable().fieldName('slo_url'),
    sloBinding: p.string().length(16).nullable().fieldName('slo_binding'),
    nameIdFormat: p.string().length(256).fieldName('name_id_format'),
    mappedAttributes: p.text().fieldName('mapped_attributes'),
    allowIdpInitiated: p.boolean().fieldName('allow_idp_initiated'),
    isActive: p.boolean().fieldName('is_active'),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
  uniques: [{ properties: ['orgId', 'entityKey'] }],
});

/** `current` signs and is published; `active` is published only (the previous key after a rotation); `retired` is neither. */
export type IdpKeyStatus = 'current' | 'active' | 'retired';

export interface IdpKeyRow {
  id: string;
  orgId: string;
  certPem: string;
  /** The PKCS#8 private key, sealed by the keys service for this key's id. */
  sealedPrivateKey: string;
  algorithm: string;
  status: IdpKeyStatus;
  createdAt: number;
  updatedAt: number;
}

export const IdpKeyEntity = defineEntity({
  name: 'LatchkeySamlIdpKey',
  tableName: 'latchkey_saml_idp_keys',
  properties: (p) => ({
    id: p.string().primary().length(64),
    orgId: p.string().length(64).fieldName('org_id').index(),
    certPem: p.text().fieldName('cert_pem'),
    sealedPrivateKey: p.text().fieldName('sealed_private_key'),
    algorithm: p.string().length(64),
    status: p.string().length(16),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});
