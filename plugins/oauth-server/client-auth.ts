/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3.1):
 * `client_secret_basic` (form-urlencoded id and secret in HTTP Basic) or `client_secret_post`;
 * using both at once is refused. A request with only `client_id` is a public client, which only
 * the built-in application client is.
 */
import type { RequestContext } from '../../core/context.js';
import type { OAuthClient } from '../client-registry/index.js';
import { invalidClient, invalidRequest } from './errors.js';
import type { Params } from './params.js';

export interface ClientCaller {
  client: OAuthClient;
  /** True when a secret or a client assertion was presented and matched (a confidential client). */
  authenticated: boolean;
  method: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';
}

/**
 * What an optional plugin offering `private_key_jwt` (RFC 7523 §2.2) provides, under the service
 * name `trusted-issuers`: the client a signed assertion authenticates, or why it does not.
 */
export interface ClientAssertionVerifier {
  /** Advertised as `token_endpoint_auth_signing_alg_values_supported`. */
  readonly assertionAlgorithms: readonly string[];
  authenticateClient(
    ctx: RequestContext,
    input: { clientId?: string; assertionType: string; assertion: string },
  ): Promise<{ client: OAuthClient } | { error: string }>;
}

/** RFC 7523 §2.2: a client assertion, verified by the `trusted-issuers` service when present. */
async function assertedClient(ctx: RequestContext, params: Params): Promise<ClientCaller> {
  if (ctx.header('authorization') || params.client_secret !== undefined)
    throw invalidRequest('use one client authentication method, not both');
  if (!params.client_assertion || !params.client_assertion_type)
    throw invalidRequest('client_assertion and client_assertion_type go together');
  const verifier = ctx.kernel.hasService('trusted-issuers') ? ctx.kernel.service('trusted-issuers') : undefined;
  if (!verifier) throw invalidClient('client assertions are not supported');
  const outcome = await verifier.authenticateClient(ctx, {
    clientId: params.client_id,
    assertionType: params.client_assertion_type,
    assertion: params.client_assertion,
  });
  if ('error' in outcome) throw invalidClient(outcome.error);
  return { client: outcome.client, authenticated: true, method: 'private_key_jwt' };
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  if (!header) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) throw invalidClient('malformed Basic credentials');
  try {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before Base64.
    return {
      id: decodeURIComponent(decoded.slice(0, i).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(i + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw invalidClient('malformed Basic credentials');
  }
}

/**
 * `anonymousIsBuiltIn`: a request with no client credentials at all (no Basic, no client_id) is
 * the built-in application client. POST /oauth/token requires client_id only for the
 * client_credentials and token-exchange grants, so the code and refresh grants take it from the
 * grant itself: a code or refresh token is bound to the client it was issued to, and one of a
 * registered (confidential) client is still refused, for the binding does not match.
 */
export async function identifyClient(
  ctx: RequestContext,
  params: Params,
  options: { anonymousIsBuiltIn?: boolean } = {},
): Promise<ClientCaller> {
  const registry = ctx.kernel.service('client-registry');
  if (params.client_assertion !== undefined || params.client_assertion_type !== undefined)
    return assertedClient(ctx, params);
  const basic = basicCredentials(ctx.header('authorization'));
  if (basic) {
    if (params.client_secret) throw invalidRequest('use one client authentication method, not both');
    if (params.client_id && params.client_id !== basic.id)
      throw invalidRequest('client_id does not match the Basic credentials');
    const client = await registry.authenticate(basic.id, basic.secret);
    if (!client) throw invalidClient();
    return { client, authenticated: true, method: 'client_secret_basic' };
  }
  const id =
    params.client_id ||
    (options.anonymousIsBuiltIn && params.client_secret === undefined
      ? ctx.kernel.config.string('client-id')
      : undefined);
  if (!id) throw invalidClient('client authentication is required');
  if (params.client_secret !== undefined) {
    const client = await registry.authenticate(id, params.client_secret);
    if (!client) throw invalidClient();
    return { client, authenticated: true, method: 'client_secret_post' };
  }
  const client = await registry.findByClientId(id);
  if (!client) throw invalidClient();
  // Every registered client is issued a secret, so it is confidential and must authenticate
  // (RFC 6749 §2.3, §6; RFC 9700 §4.14: a stolen refresh token alone must not be enough). Only
  // the built-in application client is public (browser apps using PKCE and the session cookie).
  // Self-registered clients are public too (RFC 7591 `token_endpoint_auth_method` none): their
  // codes need the PKCE verifier, and they get no client_credentials grant (an unauthenticated caller).
  if (!client.builtIn && !client.selfRegistered)
    throw invalidClient('client authentication is required for this client');
  // A metadata document that names `private_key_jwt` makes its client confidential (RFC 7523 §2.2).
  if (client.metadataDocument?.tokenEndpointAuthMethod === 'private_key_jwt')
    throw invalidClient('this client authenticates with private_key_jwt');
  return { client, authenticated: false, method: 'none' };
}

/** Inactive clients get no tokens. */
export function requireActive(caller: ClientCaller): void {
  if (!caller.client.isActive) throw invalidClient('client is inactive');
}
