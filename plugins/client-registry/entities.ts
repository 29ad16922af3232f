/**
 * The registered OAuth client: machine identities and relying
 * parties. The secret is never stored, only its digest.
 */
import { defineEntity } from '@mikro-orm/core';

export interface OAuthClientRow {
  id: string;
  clientId: string;
  name: string;
  description: string | null;
  allowedScopes: string[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  secretDigest: string;
  /**
   * Registered by the client itself (RFC 7591): public (no secret, `token_endpoint_auth_method`
   * none), PKCE S256 required, and a consent screen before any code.
   */
  selfRegistered?: boolean;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

export const OAuthClientEntity = defineEntity({
  name: 'LatchkeyOAuthClient',
  tableName: 'latchkey_oauth_clients',
  properties: (p) => ({
    id: p.string().primary().length(64),
    clientId: p.string().length(128).fieldName('client_id').unique(),
    name: p.string().length(256),
    description: p.text().nullable(),
    allowedScopes: p.json<string[]>().fieldName('allowed_scopes'),
    redirectUris: p.json<string[]>().fieldName('redirect_uris'),
    postLogoutRedirectUris: p.json<string[]>().fieldName('post_logout_redirect_uris'),
    secretDigest: p.string().length(128).fieldName('secret_digest'),
    selfRegistered: p.boolean().fieldName('self_registered').default(false),
    isActive: p.boolean().fieldName('is_active'),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});
