/**
 * A trusted issuer (wire type TrustedIssuer): an external token issuer whose signed assertions
 * authenticate one registered client (RFC 7523). It belongs to that client and is deleted with it.
 */
import { defineEntity } from '@mikro-orm/core';

export interface TrustedIssuerRow {
  id: string;
  /** The owning client's record id (`_client`'s `id`). */
  serviceAccountId: string;
  name: string;
  issuerUrl: string;
  keySourceType: string;
  jwksUrl: string | null;
  expectedAud: string;
  subjectClaim: string;
  allowedSubjects: string[];
  issuerType: string;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

export const TrustedIssuerEntity = defineEntity({
  name: 'LatchkeyTrustedIssuer',
  tableName: 'latchkey_trusted_issuers',
  properties: (p) => ({
    id: p.string().primary().length(64),
    serviceAccountId: p.string().length(64).fieldName('service_account_id').index(),
    name: p.string().length(256),
    issuerUrl: p.string().length(2048).fieldName('issuer_url'),
    keySourceType: p.string().length(32).fieldName('key_source_type'),
    jwksUrl: p.string().length(2048).fieldName('jwks_url').nullable(),
    expectedAud: p.string().length(2048).fieldName('expected_aud'),
    subjectClaim: p.string().length(128).fieldName('subject_claim'),
    allowedSubjects: p.json<string[]>().fieldName('allowed_subjects'),
    issuerType: p.string().length(32).fieldName('issuer_type'),
    isActive: p.boolean().fieldName('is_active'),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});
