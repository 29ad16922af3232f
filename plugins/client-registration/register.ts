/**
 * POST /oauth/register (RFC 7591, with `--enable-dynamic-client-registration`): unauthenticated
 * registration of public clients, as a list of checks: the body is a JSON object; `token_endpoint_auth_method`
 * is `none` (no secret is ever issued); the grants are the code flow's (`client_credentials` and
 * the implicit flow are refused); every redirect URI is https, or http on a loopback host
 * (RFC 8252 §7.3); the ceiling on self-registered clients is not reached. The client then needs
 * PKCE S256 and the user's consent before any code (plugins/oauth-server/authorize/consent.ts).
 * RFC 7592 management is not offered.
 */
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import type { RequestContext } from '../../core/context.js';

/** The most self-registered clients kept: registration is unauthenticated, so its rows are bounded. */
export const MAX_SELF_REGISTERED = 10_000;
export const REGISTER_PATH = '/oauth/register';
const ALLOWED_GRANTS = new Set(['authorization_code', 'refresh_token']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const DEFAULT_SCOPES = ['openid', 'email', 'profile', 'offline_access'];

class RegistrationError extends Error {
  constructor(
    readonly error: 'invalid_client_metadata' | 'invalid_redirect_uri',
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

const noStore = { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache' };

function strings(value: unknown, field: string, max: number): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.length === 0 || v.length > 2048)) {
    throw new RegistrationError('invalid_client_metadata', `${field} must be an array of strings`);
  }
  if (value.length > max)
    throw new RegistrationError('invalid_client_metadata', `${field} has more than ${max} entries`);
  return [...new Set(value as string[])];
}

function redirectUris(value: unknown): string[] {
  if (value === undefined) throw new RegistrationError('invalid_redirect_uri', 'redirect_uris is required');
  const uris = strings(value, 'redirect_uris', 10);
  if (uris.length === 0) throw new RegistrationError('invalid_redirect_uri', 'redirect_uris must not be empty');
  for (const uri of uris) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new RegistrationError('invalid_redirect_uri', 'each redirect URI must be an absolute URI');
    }
    const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
    if (!secure)
      throw new RegistrationError('invalid_redirect_uri', 'redirect URIs must be https, or http on loopback');
    if (url.hash || url.username || url.password) {
      throw new RegistrationError('invalid_redirect_uri', 'redirect URIs must not carry a fragment or credentials');
    }
  }
  return uris;
}

async function register(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  try {
    const body = req.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new RegistrationError('invalid_client_metadata', 'the body must be a JSON object');
    }
    const meta = body as Record<string, unknown>;
    const method = meta.token_endpoint_auth_method ?? 'none';
    if (method !== 'none') {
      throw new RegistrationError(
        'invalid_client_metadata',
        'token_endpoint_auth_method must be none (public clients only)',
      );
    }
    const grants =
      meta.grant_types === undefined ? ['authorization_code'] : strings(meta.grant_types, 'grant_types', 4);
    const refused = grants.find((g) => !ALLOWED_GRANTS.has(g));
    if (refused !== undefined)
      throw new RegistrationError('invalid_client_metadata', `grant type ${refused} is not allowed`);
    if (meta.response_types !== undefined) {
      const types = strings(meta.response_types, 'response_types', 2);
      if (types.some((t) => t !== 'code'))
        throw new RegistrationError('invalid_client_metadata', 'only response_type code is allowed');
    }
    const uris = redirectUris(meta.redirect_uris);
    const name = meta.client_name === undefined ? 'Unnamed application' : meta.client_name;
    if (typeof name !== 'string' || name.trim() === '' || name.length > 256) {
      throw new RegistrationError(
        'invalid_client_metadata',
        'client_name must be a non-empty string of at most 256 characters',
      );
    }
    let scopes = DEFAULT_SCOPES;
    if (meta.scope !== undefined) {
      if (typeof meta.scope !== 'string' || meta.scope.length > 1024)
        throw new RegistrationError('invalid_client_metadata', 'scope must be a space-separated string');
      scopes = meta.scope.split(' ').filter(Boolean);
      if (scopes.some((s) => !/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/.test(s)))
        throw new RegistrationError('invalid_client_metadata', 'scope holds an invalid scope token');
    }
    const registry = ctx.kernel.service('client-registry');
    if ((await registry.countSelfRegistered()) >= MAX_SELF_REGISTERED) {
      throw new RegistrationError('invalid_client_metadata', 'no more clients can be registered here', 403);
    }
    const client = await registry.registerPublic({ name: name.trim(), redirect_uris: uris, scopes });
    return {
      status: 201,
      headers: noStore,
      body: {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(client.createdAt / 1000),
        client_name: client.name,
        redirect_uris: client.redirectUris,
        grant_types: grants,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: client.allowedScopes.join(' '),
      },
    };
  } catch (err) {
    if (err instanceof RegistrationError) {
      return { status: err.status, headers: noStore, body: { error: err.error, error_description: err.description } };
    }
    // The registry's own checks (a scope token, a redirect URI) are client metadata errors too.
    if (err instanceof Error && 'code' in err && (err as { code: unknown }).code === 'invalid_argument') {
      return {
        status: 400,
        headers: noStore,
        body: { error: 'invalid_client_metadata', error_description: err.message },
      };
    }
    throw err;
  }
}

export const registerRoute: RawRoute = {
  method: 'POST',
  path: REGISTER_PATH,
  // A native or CLI client posts without a browser Origin: exempt from the CSRF check, as back ends are.
  csrfExempt: true,
  errors: 'oauth-registration',
  // Registration has a per-IP bucket of its own, separate from the global limiter.
  rateLimit: { max: 20, timeWindow: '1 minute' },
  handler: register,
};
