/**
 * Checking `GET /oauth_login/{provider}` (`redirectURL` or `redirect_uri`, `state`,
 * `roles`, `scope`). The target follows /authorize's rule for the built-in client (the client
 * registry's `redirectAllowed`: a listed `--allowed-origins` origin, or the service's own site
 * under `*`); until it is trusted, errors are shown as a page, never redirected (RFC 6749 §4.1.2.1).
 */
import type { RequestContext } from '../../core/context.js';
import { errorPage, redirectWith, SocialLoginFailure } from './responses.js';
import type { LoginRequest } from './types.js';

export const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;
const MAX_PARAM = 4096;

const refuse = (error: string, description: string): SocialLoginFailure =>
  new SocialLoginFailure(errorPage(400, error, description));

async function targetAllowed(ctx: RequestContext, uri: string): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  // The service's own pages (the hosted login page, the /authorize request that sent the user
  // there) are always a target: they read the session cookie, and no token travels in their URL.
  if (url.origin === new URL(ctx.kernel.config.string('url', 'http://localhost')).origin) return true;
  const registry = ctx.kernel.hasService('client-registry') ? ctx.kernel.service('client-registry') : undefined;
  if (!registry) return false;
  const builtIn = await registry.findByClientId(ctx.kernel.config.string('client-id') ?? '');
  return builtIn !== null && registry.redirectAllowed(builtIn, uri);
}

export async function parseLoginRequest(
  ctx: RequestContext,
  query: Record<string, string | undefined>,
): Promise<LoginRequest> {
  const redirectUri = query.redirect_uri || query.redirectURL;
  if (!redirectUri) throw refuse('invalid_request', 'redirect_uri (or redirectURL) is required');
  if (redirectUri.length > MAX_PARAM || !(await targetAllowed(ctx, redirectUri)))
    throw refuse('invalid_request', 'redirect_uri is not an allowed redirect target');
  const responseMode = query.response_mode === 'query' ? 'query' : 'fragment';
  const back = (description: string) =>
    new SocialLoginFailure(
      redirectWith(redirectUri, responseMode, {
        error: 'invalid_request',
        error_description: description,
        ...(query.state ? { state: query.state.slice(0, MAX_PARAM) } : {}),
      }),
    );
  if (query.response_mode !== undefined && query.response_mode !== 'query' && query.response_mode !== 'fragment')
    throw back('response_mode must be query or fragment');
  const state = query.state;
  if (!state) throw back('state is required');
  if (state.length > MAX_PARAM) throw back('state is too long');

  const users = ctx.kernel.service('users');
  const asked = (query.roles ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const roles = [...new Set(asked)];
  if (roles.some((r) => !users.roles.allowed.includes(r))) throw back('invalid roles');

  const scopes = (query.scope ?? '').split(/[\s,]+/).filter(Boolean);
  if (scopes.some((s) => !SCOPE_TOKEN.test(s))) throw back('invalid scope');
  return {
    redirectUri,
    state,
    roles,
    scopes: scopes.length > 0 ? [...new Set(scopes)] : [...DEFAULT_SCOPES],
    responseMode,
  };
}
