/**
 * The organization OIDC broker: `GET /oauth/oidc/{org_slug}/login` sends the browser to the
 * organization's upstream issuer (code flow with PKCE S256 and a nonce), and
 * `GET /oauth/oidc/{org_slug}/callback` takes its answer. The callback is a pipeline of named
 * checks: the state bound to this browser, the upstream error, the code exchange with the ID
 * token's checks (openid-client), then the account: a just-in-time user keyed by issuer and
 * subject, joined to the organization, signed in through the social service's account rules and
 * the sign-in gates, and sent back through the same redirect rules as /authorize.
 */
import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import { recordLoginRefusal } from '../sign-in/index.js';
import type { SocialProfile } from '../social/index.js';
import { type OidcConnection } from './connections.js';
import { savePending, takePending } from './broker-state.js';
import { orgLoginOf } from './org-login.js';
import { CALLBACK_PATH, callbackUrlOf, LOGIN_PATH, slugOf } from './paths.js';

/** The sign-in method and identity namespace of an issuer: its URL's digest, so a changed issuer never reaches old identities. */
export const providerOf = (issuerUrl: string) =>
  `oidc:${createHash('sha256').update(issuerUrl).digest('hex').slice(0, 40)}`;

const query = (req: RawRequest): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.query)) if (typeof v === 'string' && v.length <= 8192) out[k] = v;
  return out;
};

/** The organization's active connection for a slug, or null (an unknown slug and an inactive connection look alike). */
const activeConnection = (ctx: RequestContext, slug: string): Promise<OidcConnection | null> =>
  ctx.kernel.service('organizations').activeRecordOf(slug, ctx.kernel.service('org-sso').connections);

const callbackOf = (ctx: RequestContext, c: OidcConnection, slug: string) =>
  c.redirectUri ?? callbackUrlOf(ctx.kernel.config, slug);

async function login(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  const social = ctx.kernel.service('social');
  const slug = slugOf(req.path);
  const started = await orgLoginOf(ctx, req.query, slug, ctx.kernel.service('org-sso').connections);
  if ('refusal' in started) return started.refusal;
  const { request, connection } = started;
  let config: oidc.Configuration;
  try {
    config = await ctx.kernel.service('org-sso').relyingParty(connection);
  } catch (err) {
    ctx.kernel.logger.warn({ connection: connection.id, reason: (err as Error).message }, 'org sso discovery failed');
    return social.fail(request, 'temporarily_unavailable', 'the identity provider is not available');
  }
  const state = oidc.randomState();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  await savePending(ctx, state, { connectionId: connection.id, slug, codeVerifier, nonce, request });
  const location = oidc.buildAuthorizationUrl(config, {
    response_type: 'code',
    redirect_uri: callbackOf(ctx, connection, slug),
    scope: connection.scopes.join(' '),
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  }).href;
  return { status: 302, headers: { location, 'cache-control': 'no-store' } };
}

/** The upstream user as a social profile: only a claimed-verified email counts as verified (OIDC Core §5.1). */
function profileOf(claims: oidc.IDToken): SocialProfile {
  const str = (v: unknown, max: number) => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined);
  const profile: SocialProfile = { subject: claims.sub, emailVerified: claims.email_verified === true };
  const email = str(claims.email, 320);
  if (email) profile.email = email;
  const given = str(claims.given_name, 256);
  if (given) profile.givenName = given;
  const family = str(claims.family_name, 256);
  if (family) profile.familyName = family;
  const nickname = str(claims.nickname, 256) ?? str(claims.name, 256);
  if (nickname) profile.nickname = nickname;
  const picture = str(claims.picture, 2048);
  if (picture) profile.picture = picture;
  return profile;
}

/** The `method` of a refused organization SSO login's audit record. */
const SSO_METHOD = 'org_sso';

async function callback(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  const social = ctx.kernel.service('social');
  const params = query(req);
  const pending = await takePending(ctx, params.state);
  const slug = slugOf(req.path);
  // Each refusal below is a refused login in the audit log (plugins/sign-in/audit.ts).
  const refused = (reason: string) => recordLoginRefusal(ctx, { method: SSO_METHOD, reason });
  if (!pending || pending.slug !== slug) {
    await refused('invalid_state');
    return social.errorPage(400, 'invalid_state', 'the login could not be matched to this browser; start it again');
  }
  const { request } = pending;
  if (params.error) {
    await refused('access_denied');
    return social.fail(request, 'access_denied', 'the identity provider did not sign the user in');
  }
  const connection = await activeConnection(ctx, slug);
  if (!connection || connection.id !== pending.connectionId) {
    await refused('connection_changed');
    return social.fail(request, 'access_denied', 'the single sign-on connection changed during the login');
  }
  let profile: SocialProfile;
  try {
    const config = await ctx.kernel.service('org-sso').relyingParty(connection);
    const current = new URL(callbackOf(ctx, connection, slug));
    for (const [k, v] of Object.entries(params)) current.searchParams.set(k, v);
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      expectedState: pending.slug ? params.state : undefined,
      expectedNonce: pending.nonce,
      pkceCodeVerifier: pending.codeVerifier,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims || typeof claims.sub !== 'string' || claims.sub.length === 0 || claims.sub.length > 255) {
      throw new Error('the ID token has no usable subject');
    }
    profile = profileOf(claims);
  } catch (err) {
    ctx.kernel.logger.warn({ connection: connection.id, reason: (err as Error).message }, 'org sso callback failed');
    await refused('unverified_answer');
    return social.fail(request, 'server_error', "the identity provider's answer could not be verified");
  }
  const organizations = ctx.kernel.service('organizations');
  return social.complete(ctx, providerOf(connection.issuerUrl), profile, request, {
    // Just-in-time membership: whoever the organization's own identity provider signs in belongs to it.
    beforeSignIn: async (user) => {
      if (user.revokedTimestamp !== null) throw new ServiceError('permission_denied', 'user access has been revoked');
      if (!(await organizations.isMember(connection.orgId, user.id)))
        await organizations.addMember(connection.orgId, user.id);
    },
  });
}

export const brokerRoutes: RawRoute[] = [
  { method: 'GET', path: LOGIN_PATH, handler: login },
  { method: 'GET', path: CALLBACK_PATH, handler: callback },
];
