/**
 * The discovery document (OpenID Connect Discovery 1.0 §3, RFC 8414 §2). Both well-known paths
 * serve the identical document.
 */
import type { Config } from '../../core/config.js';
import type { RequestContext } from '../../core/context.js';
import type { RawRoute } from '../../core/plugin.js';
import { ENDPOINTS, baseOf, issuerOf } from './issuer.js';
import { SUPPORTED_CLAIMS, SUPPORTED_SCOPES } from './scopes.js';

export function discoveryDocument(
  config: Config,
  signingAlg: string,
  grants: readonly string[],
): Record<string, unknown> {
  const issuer = issuerOf(config);
  const base = baseOf(config);
  const authMethods = ['client_secret_basic', 'client_secret_post', 'none'];
  return {
    issuer,
    authorization_endpoint: base + ENDPOINTS.authorize,
    token_endpoint: base + ENDPOINTS.token,
    userinfo_endpoint: base + ENDPOINTS.userinfo,
    jwks_uri: base + ENDPOINTS.jwks,
    revocation_endpoint: base + ENDPOINTS.revoke,
    introspection_endpoint: base + ENDPOINTS.introspect,
    end_session_endpoint: base + ENDPOINTS.logout,
    scopes_supported: SUPPORTED_SCOPES,
    response_types_supported: ['code', 'token'],
    response_modes_supported: ['query', 'fragment', 'form_post', 'web_message'],
    grant_types_supported: grants,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [signingAlg],
    userinfo_signing_alg_values_supported: ['none'],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    // Introspection always needs an authenticated client (RFC 7662 §2.1): `none` is not offered.
    introspection_endpoint_auth_methods_supported: authMethods.filter((m) => m !== 'none'),
    code_challenge_methods_supported: ['S256'],
    claims_supported: SUPPORTED_CLAIMS,
    claim_types_supported: ['normal'],
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    claims_parameter_supported: false,
    // RFC 9207: every authorization response carries `iss` (mix-up defence, RFC 9700 §4.4).
    authorization_response_iss_parameter_supported: true,
    // Set by the route below: true where the client-metadata plugin resolves document clients.
    client_id_metadata_document_supported: false,
  };
}

/** Where dynamic client registration is served when its plugin is enabled (RFC 7591 §3). */
export const REGISTRATION_PATH = '/oauth/register';

export function discoveryRoutes(grantTypes: (ctx: RequestContext) => string[]): RawRoute[] {
  const handler: RawRoute['handler'] = async (_req, ctx) => {
    const kernel = ctx.kernel;
    const grants = [...grantTypes(ctx), 'implicit'];
    const body = discoveryDocument(kernel.config, kernel.service('keys').current.alg, grants);
    // RFC 8414 §2: advertised only where the registration plugin serves it.
    if (kernel.routes.some((r) => r.method === 'POST' && r.path === REGISTRATION_PATH))
      body.registration_endpoint = baseOf(kernel.config) + REGISTRATION_PATH;
    // draft-ietf-oauth-client-id-metadata-document §5: https client ids name their documents.
    body.client_id_metadata_document_supported = kernel.hasService('client-metadata');
    // RFC 8414 §2: `private_key_jwt` only where the trusted-issuers plugin verifies assertions.
    if (kernel.hasService('trusted-issuers')) {
      const algs = [...kernel.service('trusted-issuers').assertionAlgorithms];
      for (const key of ['token_endpoint', 'revocation_endpoint', 'introspection_endpoint']) {
        body[`${key}_auth_methods_supported`] = [
          ...(body[`${key}_auth_methods_supported`] as string[]),
          'private_key_jwt',
        ];
        body[`${key}_auth_signing_alg_values_supported`] = algs;
      }
    }
    return { status: 200, headers: { 'cache-control': 'public, max-age=300' }, body };
  };
  return [
    { method: 'GET', path: '/.well-known/openid-configuration', handler },
    { method: 'GET', path: '/.well-known/oauth-authorization-server', handler },
  ];
}
