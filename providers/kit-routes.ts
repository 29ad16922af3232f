/**
 * The two routes every provider serves: `GET /oauth_login/{provider}`
 * sends the browser to the provider, `GET|POST /oauth_callback/{provider}` takes its answer.
 * The callback is a pipeline of named checks; the account, the sign-in gates and the redirect
 * back are the social service's.
 */
import * as oidc from 'openid-client';
import type { Config } from '../core/config.js';
import type { RequestContext } from '../core/context.js';
import type { RawRequest, RawResponse, RawRoute } from '../core/plugin.js';
import type { SocialProfile } from '../plugins/social/index.js';
import { recordLoginRefusal } from '../plugins/sign-in/index.js';
import { ProviderError, reasonOf } from './errors.js';
import { fetchJson } from './fetch-json.js';
import type { ProviderClient } from './kit-client.js';
import { endpointsOf, scopesOf } from './kit-flags.js';
import { savePending, takePending, type PendingLogin } from './kit-state.js';
import type { JsonObject, ProviderDescriptor } from './kit-types.js';

export type ClientOf = (config: Config) => Promise<ProviderClient>;

export function callbackUrl(config: Config, provider: string): string {
  const url = new URL(config.string('url') ?? 'http://localhost');
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}/oauth_callback/${provider}`;
}

/** Query or form values that are single strings (repeated or odd values are dropped). */
function stringsOf(source: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (source && typeof source === 'object')
    for (const [k, v] of Object.entries(source as Record<string, unknown>))
      if (typeof v === 'string' && v.length <= 8192) out[k] = v;
  return out;
}

/** Provider error codes passed on as they are (RFC 6749 §4.1.2.1); any other becomes access_denied. */
const PASSED_ERRORS = new Set(['access_denied', 'temporarily_unavailable', 'server_error']);

function logFailure(ctx: RequestContext, provider: string, step: string, err: unknown): void {
  ctx.kernel.logger.warn({ provider, step, reason: reasonOf(err) }, 'social login failed');
}

async function begin(d: ProviderDescriptor, clientOf: ClientOf, req: RawRequest, ctx: RequestContext) {
  const social = ctx.kernel.service('social');
  const parsed = await social.loginRequestOf(ctx, req.query);
  if ('refusal' in parsed) return parsed.refusal;
  const { request } = parsed;
  let client: ProviderClient;
  try {
    client = await clientOf(ctx.kernel.config);
  } catch (err) {
    logFailure(ctx, d.name, 'discovery', err);
    return social.fail(request, 'temporarily_unavailable', 'the identity provider is not available');
  }
  const config = ctx.kernel.config;
  const state = oidc.randomState();
  const pending: PendingLogin = { provider: d.name, request };
  const params: Record<string, string> = {
    response_type: 'code',
    redirect_uri: callbackUrl(config, d.name),
    scope: scopesOf(d, config).join(d.scopeSeparator ?? ' '),
    state,
  };
  if (d.pkce) {
    pending.codeVerifier = oidc.randomPKCECodeVerifier();
    params.code_challenge = await oidc.calculatePKCECodeChallenge(pending.codeVerifier);
    params.code_challenge_method = 'S256';
  }
  if (client.oidc) params.nonce = pending.nonce = oidc.randomNonce();
  if (d.formPost) params.response_mode = 'form_post';
  Object.assign(params, d.authorizationParams?.(config));
  await savePending(ctx, state, pending, d.formPost === true);
  const location = oidc.buildAuthorizationUrl(client.config, params).href;
  return { status: 302, headers: { location, 'cache-control': 'no-store' } };
}

/** The profile fields' limits (plugins/users/schemas.ts `profileInput`, the user table's columns). */
const FIELD_LIMITS = { givenName: 256, familyName: 256, nickname: 256, preferredUsername: 256, picture: 2048 } as const;

/**
 * The mapping's answer, checked: a usable subject and email; profile fields that are not strings
 * within the user record's limits are left out (a provider's odd display name must not fail the login).
 */
function checkProfile(p: SocialProfile): SocialProfile {
  if (typeof p.subject !== 'string' || p.subject.length === 0 || p.subject.length > 255)
    throw new ProviderError('missing_subject', "the provider's answer has no usable user id");
  if (p.email !== undefined && (typeof p.email !== 'string' || p.email.length > 320))
    throw new ProviderError('bad_email', "the provider's answer has an unusable email");
  const out: SocialProfile = { subject: p.subject, emailVerified: p.email !== undefined && p.emailVerified === true };
  if (p.email !== undefined) out.email = p.email;
  for (const [field, max] of Object.entries(FIELD_LIMITS) as [keyof typeof FIELD_LIMITS, number][]) {
    const v = p[field];
    if (typeof v === 'string' && v.length > 0 && v.length <= max) out[field] = v;
  }
  return out;
}

/** The code exchange, the ID token's checks and the profile (openid-client, then the provider's mapping). */
async function proveIdentity(
  d: ProviderDescriptor,
  clientOf: ClientOf,
  ctx: RequestContext,
  params: Record<string, string>,
  pending: PendingLogin,
): Promise<SocialProfile> {
  const config = ctx.kernel.config;
  const client = await clientOf(config);
  const current = new URL(callbackUrl(config, d.name));
  for (const [k, v] of Object.entries(params)) current.searchParams.set(k, v);
  const tokens = await oidc.authorizationCodeGrant(client.config, current, {
    expectedState: params.state,
    idTokenExpected: client.oidc,
    ...(pending.codeVerifier ? { pkceCodeVerifier: pending.codeVerifier } : {}),
    ...(pending.nonce ? { expectedNonce: pending.nonce } : {}),
  });
  const claims = client.oidc ? tokens.claims() : undefined;
  if (claims && d.checkClaims) d.checkClaims(claims, config);
  let userinfo: JsonObject | undefined;
  if (claims && d.userinfo !== false && client.config.serverMetadata().userinfo_endpoint)
    userinfo = (await oidc.fetchUserInfo(client.config, tokens.access_token, claims.sub)) as JsonObject;
  const endpoints = endpointsOf(d, config);
  const profile = await d.profile({
    tokens,
    ...(claims ? { claims } : {}),
    ...(userinfo ? { userinfo } : {}),
    api: (key, init) => {
      const url = endpoints[key];
      if (!url) throw new ProviderError('unknown_endpoint', `the provider has no ${key} endpoint`);
      return fetchJson(url, tokens.access_token, key, init);
    },
    callback: params,
    config,
  });
  return checkProfile(profile);
}

async function finish(
  d: ProviderDescriptor,
  clientOf: ClientOf,
  req: RawRequest,
  ctx: RequestContext,
): Promise<RawResponse> {
  const social = ctx.kernel.service('social');
  const params = stringsOf(req.query);
  const taken = await takePending(ctx, d.name, params.state, d.formPost === true);
  // Each refusal below is a refused login in the audit log (plugins/sign-in/audit.ts).
  const refused = (reason: string) => recordLoginRefusal(ctx, { method: d.name, reason });
  if (!taken.ok) {
    await refused('invalid_state');
    return social.errorPage(400, 'invalid_state', taken.description);
  }
  const { request } = taken.pending;
  if (params.error) {
    const error = PASSED_ERRORS.has(params.error) ? params.error : 'access_denied';
    await refused(error);
    return social.fail(request, error, 'the identity provider did not sign the user in');
  }
  let profile: SocialProfile;
  try {
    profile = await proveIdentity(d, clientOf, ctx, params, taken.pending);
  } catch (err) {
    logFailure(ctx, d.name, 'callback', err);
    await refused(err instanceof ProviderError ? err.reason : 'unverified_answer');
    const description =
      err instanceof ProviderError ? err.message : "the identity provider's answer could not be verified";
    return social.fail(request, 'server_error', description);
  }
  return social.complete(ctx, d.name, profile, request);
}

/**
 * A form_post answer (Apple) is a cross-site POST: this service's cookies are neither read nor set
 * for it (transports/http/credentialed-origins.ts), so it is turned into the same callback as a
 * top-level GET, which carries the SameSite=Lax state cookie and receives the session's.
 */
function formPostToGet(d: ProviderDescriptor, req: RawRequest, ctx: RequestContext): RawResponse {
  const query = new URLSearchParams(stringsOf(req.body));
  const target = `${callbackUrl(ctx.kernel.config, d.name)}?${query.toString()}`;
  return { status: 303, headers: { location: target, 'cache-control': 'no-store' } };
}

export function providerRoutes(d: ProviderDescriptor, clientOf: ClientOf): RawRoute[] {
  return [
    { method: 'GET', path: `/oauth_login/${d.name}`, handler: (req, ctx) => begin(d, clientOf, req, ctx) },
    { method: 'GET', path: `/oauth_callback/${d.name}`, handler: (req, ctx) => finish(d, clientOf, req, ctx) },
    {
      method: 'POST',
      path: `/oauth_callback/${d.name}`,
      form: true,
      // The provider posts from its own origin; the state check is this route's CSRF defence.
      csrfExempt: true,
      handler: async (req, ctx) => formPostToGet(d, req, ctx),
    },
  ];
}
