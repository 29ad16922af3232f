/** Schemas of the trusted-issuer admin API (wire types TrustedIssuer, AddTrustedIssuerRequest). */
import {
  Bool,
  InputObject,
  Int64,
  OptBool,
  OptStr,
  OptStrList,
  OutputObject,
  Pagination,
  PaginationRequest,
  Str,
  Type,
} from '../../core/schema.js';

export const TrustedIssuer = OutputObject('TrustedIssuer', {
  id: Type.String(),
  service_account_id: Type.String(),
  name: Type.String(),
  issuer_url: Type.String(),
  key_source_type: Type.String(),
  jwks_url: Type.Optional(Type.String()),
  expected_aud: Type.String(),
  subject_claim: Type.String(),
  allowed_subjects: Type.Array(Type.String()),
  issuer_type: Type.String(),
  is_active: Bool(),
  created_at: Int64(),
  updated_at: Int64(),
});

const subjects = OptStrList({
  maxItems: 100,
  maxLength: 512,
  description: 'Subjects accepted besides the client id; empty accepts only the client id.',
});

export const AddTrustedIssuerRequest = InputObject('AddTrustedIssuerRequest', {
  service_account_id: Str({ max: 64, min: 1, description: 'The id of the client the issuer authenticates.' }),
  name: Str({ max: 256, min: 1 }),
  issuer_url: Str({ max: 2048, min: 1, description: 'The `iss` of its assertions.' }),
  key_source_type: Str({ max: 32, min: 1, description: 'oidc_discovery or static_jwks_url.' }),
  jwks_url: OptStr({ max: 2048, description: 'Required with static_jwks_url.' }),
  expected_aud: Str({ max: 2048, min: 1, description: 'The token endpoint URL or the issuer URL of this server.' }),
  subject_claim: OptStr({ max: 128, min: 1, description: 'The claim naming the subject; default sub.' }),
  allowed_subjects: subjects,
  issuer_type: Str({ max: 32, min: 1, description: 'generic or spiffe (subjects are SPIFFE IDs).' }),
});

export const UpdateTrustedIssuerRequest = InputObject('UpdateTrustedIssuerRequest', {
  id: Str({ max: 64, min: 1 }),
  name: OptStr({ max: 256, min: 1 }),
  jwks_url: OptStr({ max: 2048, min: 1 }),
  expected_aud: OptStr({ max: 2048, min: 1 }),
  is_active: OptBool(),
  issuer_type: OptStr({ max: 32, min: 1, description: 'generic or spiffe (subjects are SPIFFE IDs).' }),
});

export const TrustedIssuerRequest = InputObject('TrustedIssuerRequest', { id: Str({ max: 64, min: 1 }) });

export const ListTrustedIssuersRequest = InputObject('ListTrustedIssuersRequest', {
  pagination: Type.Optional(PaginationRequest),
  service_account_id: OptStr({ max: 64, min: 1, description: 'Only the issuers of this client.' }),
});

export const TrustedIssuers = OutputObject('TrustedIssuers', {
  pagination: Pagination,
  trusted_issuers: Type.Array(TrustedIssuer),
});
