/**
 * One upstream OpenID Connect connection per organization (wire type OrgOIDCConnection). The
 * upstream client secret is kept sealed with `--encryption-key` and never leaves
 * the server.
 */
import { defineEntity } from '@mikro-orm/core';

export interface OidcConnectionRow {
  id: string;
  orgId: string;
  name: string;
  issuerUrl: string;
  clientId: string;
  clientSecretSealed: string;
  scopes: string;
  redirectUri: string | null;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

export const OidcConnectionEntity = defineEntity({
  name: 'LatchkeyOrgOidcConnection',
  tableName: 'latchkey_org_oidc_connections',
  properties: (p) => ({
    id: p.string().primary().length(64),
    orgId: p.string().length(64).fieldName('org_id').unique(),
    name: p.string().length(256),
    issuerUrl: p.string().length(2048).fieldName('issuer_url'),
    clientId: p.string().length(512).fieldName('client_id'),
    clientSecretSealed: p.text().fieldName('client_secret_sealed'),
    scopes: p.string().length(1024),
    redirectUri: p.string().length(2048).nullable().fieldName('redirect_uri'),
    isActive: p.boolean().fieldName('is_active'),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});
