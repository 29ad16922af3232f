/**
 * The checks on a fetched client ID metadata document (draft-ietf-oauth-client-id-metadata-
 * document §4, with RFC 7591 §2 metadata): a JSON object whose `client_id` is exactly the URL it
 * was fetched from; a public client (`none`) or one that authenticates with `private_key_jwt`
 * and keys at an https `jwks_uri`, never a shared secret; the code flow's grants; redirect URIs
 * that are https, or http on loopback (RFC 8252 §7.3), matched later by exact string comparison.
 */
import type { OAuthClient } from '../client-registry/index.js';

/**
 * Without a `scope` member: the scopes the service supports for users, which is what an MCP
 * client asks for (the protected resource metadata's `scopes_supported`); consent still decides.
 */
export const DEFAULT_SCOPES = ['openid', 'email', 'profile', 'phone', 'offline_access'];
const MAX_REDIRECT_URIS = 20;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;
const ALLOWED_GRANTS = new Set(['authorization_code', 'refresh_token']);
const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

export class DocumentRefusal extends Error {}

function stringArray(value: unknown, field: string, max: number): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.length === 0 || v.length > 2048))
    throw new DocumentRefusal(`${field} must be an array of strings`);
  if (value.length > max) throw new DocumentRefusal(`${field} has more than ${max} entries`);
  return [...new Set(value as string[])];
}

function redirectUris(value: unknown): string[] {
  if (value === undefined) throw new DocumentRefusal('redirect_uris is required');
  const uris = stringArray(value, 'redirect_uris', MAX_REDIRECT_URIS);
  if (uris.length === 0) throw new DocumentRefusal('redirect_uris must not be empty');
  for (const uri of uris) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new DocumentRefusal('each redirect URI must be an absolute URI');
    }
    if (!(url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))))
      throw new DocumentRefusal('redirect URIs must be https, or http on loopback');
    if (url.hash || uri.includes('#') || url.username || url.password)
      throw new DocumentRefusal('redirect URIs must not carry a fragment or user info');
  }
  return uris;
}

function authMethod(doc: Record<string, unknown>): {
  tokenEndpointAuthMethod: 'none' | 'private_key_jwt';
  jwksUri?: string;
} {
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (typeof method === 'string' && SECRET_METHODS.has(method))
    throw new DocumentRefusal(
      `token_endpoint_auth_method ${method} is not allowed: a document client has no shared secret`,
    );
  if (method === 'none') return { tokenEndpointAuthMethod: 'none' };
  if (method !== 'private_key_jwt')
    throw new DocumentRefusal('token_endpoint_auth_method must be none or private_key_jwt');
  if (typeof doc.jwks_uri !== 'string') throw new DocumentRefusal('private_key_jwt needs a jwks_uri');
  let url: URL;
  try {
    url = new URL(doc.jwks_uri);
  } catch {
    throw new DocumentRefusal('jwks_uri must be an absolute https URL');
  }
  if (url.protocol !== 'https:') throw new DocumentRefusal('jwks_uri must be an absolute https URL');
  return { tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: url.href };
}

/** The client the document describes; throws DocumentRefusal with the reason it is refused. */
export function clientFromDocument(clientId: string, text: string): OAuthClient {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new DocumentRefusal('the client metadata document is not valid JSON');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new DocumentRefusal('the client metadata document must be a JSON object');
  const meta = doc as Record<string, unknown>;
  if (meta.client_id !== clientId)
    throw new DocumentRefusal('the client_id in the client metadata document does not equal its URL');
  if (meta.client_secret !== undefined || meta.client_secret_expires_at !== undefined)
    throw new DocumentRefusal('a client metadata document must not contain a client_secret');
  const auth = authMethod(meta);
  if (meta.grant_types !== undefined) {
    const refused = stringArray(meta.grant_types, 'grant_types', 4).find((g) => !ALLOWED_GRANTS.has(g));
    if (refused !== undefined) throw new DocumentRefusal(`grant type ${refused} is not allowed`);
  }
  if (
    meta.response_types !== undefined &&
    stringArray(meta.response_types, 'response_types', 2).some((r) => r !== 'code')
  )
    throw new DocumentRefusal('only response_type code is allowed');
  const uris = redirectUris(meta.redirect_uris);
  const host = new URL(clientId).host;
  const name = meta.client_name === undefined ? host : meta.client_name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 256)
    throw new DocumentRefusal('client_name must be a non-empty string of at most 256 characters');
  let scopes = DEFAULT_SCOPES;
  if (meta.scope !== undefined) {
    if (typeof meta.scope !== 'string' || meta.scope.length > 1024)
      throw new DocumentRefusal('scope must be a space-separated string');
    scopes = [...new Set(meta.scope.split(' ').filter(Boolean))];
    if (scopes.some((s) => !SCOPE_TOKEN.test(s))) throw new DocumentRefusal('scope holds an invalid scope token');
  }
  return {
    id: clientId,
    clientId,
    name: name.trim(),
    description: null,
    allowedScopes: scopes,
    redirectUris: uris,
    postLogoutRedirectUris: [],
    isActive: true,
    createdAt: 0,
    updatedAt: 0,
    builtIn: false,
    selfRegistered: true,
    metadataDocument: auth,
  };
}
