/**
 * The OAuth / OIDC flows driven by a certified relying party (openid-client 6): discovery, code +
 * PKCE with nonce and ID token validation, userinfo, refresh rotation, client credentials,
 * introspection and revocation.
 */
import t from 'tap';
import * as oidc from 'openid-client';
import { decodeJwt } from 'jose';
import { browserAuthorize, oauthFixture } from './setup.js';

/** What openid-client rejects with for an RFC 6749 error body. */
const oauthError = (error: string): Error => ({ error }) as unknown as Error;

t.test('OpenID Connect flows with openid-client', async (t) => {
  const fx = await oauthFixture();
  t.teardown(() => fx.server.close());
  const issuer = new URL(fx.server.url);
  const config = await oidc.discovery(issuer, fx.client.client_id, fx.client.client_secret, undefined, {
    execute: [oidc.allowInsecureRequests],
  });

  t.test('discovery documents', async (t) => {
    const meta = config.serverMetadata();
    t.equal(meta.issuer, fx.server.url);
    t.equal(meta.token_endpoint, `${fx.server.url}/oauth/token`);
    t.same(meta.code_challenge_methods_supported, ['S256']);
    const a = await (await fetch(`${fx.server.url}/.well-known/openid-configuration`)).json();
    const b = await (await fetch(`${fx.server.url}/.well-known/oauth-authorization-server`)).json();
    t.same(a, b, 'the RFC 8414 alias is identical');
    t.equal((b as Record<string, unknown>).client_id_metadata_document_supported, false);
  });

  let refreshToken = '';
  let accessToken = '';
  t.test('authorization code + PKCE + nonce; ID token validated by the RP', async (t) => {
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: fx.redirectUri,
      response_type: 'code',
      scope: 'openid email profile offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
      state,
    });
    const res = await browserAuthorize(url, fx.cookie);
    t.equal(res.status, 302);
    const callback = new URL(res.headers.get('location')!);
    t.equal(callback.origin + callback.pathname, fx.redirectUri);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      expectedState: state,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    t.equal(claims.iss, fx.server.url);
    t.equal(claims.aud, fx.client.client_id);
    t.equal(claims.sub, fx.userId);
    t.equal(claims.nonce, nonce);
    t.ok(claims.at_hash, 'at_hash present');
    t.ok(claims.auth_time);
    t.same(claims.amr, ['pwd']);
    t.same(claims.role, ['user']);
    t.equal(claims.email, 'ada@example.com');
    t.equal(claims.given_name, 'Ada');
    t.ok(tokens.refresh_token, 'offline_access gives a refresh token');
    t.equal(decodeJwt(tokens.access_token).aud, fx.client.client_id);
    refreshToken = tokens.refresh_token!;
    accessToken = tokens.access_token;

    const info = await oidc.fetchUserInfo(config, tokens.access_token, fx.userId);
    t.equal(info.email, 'ada@example.com');
    t.equal(info.family_name, 'Lovelace');
  });

  t.test('claims follow the scopes', async (t) => {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: fx.redirectUri,
      scope: 'openid email',
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      state: 's1',
    });
    const res = await browserAuthorize(url, fx.cookie);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: 's1',
    });
    const claims = tokens.claims()!;
    t.equal(claims.email, 'ada@example.com');
    t.notOk('given_name' in claims, 'no profile claims without the profile scope');
    t.notOk(tokens.refresh_token, 'no refresh token without offline_access');
    const info = await oidc.fetchUserInfo(config, tokens.access_token, fx.userId);
    t.equal(info.email, 'ada@example.com');
    t.notOk('given_name' in info);
  });

  t.test('refresh rotation and reuse detection', async (t) => {
    const first = await oidc.refreshTokenGrant(config, refreshToken);
    t.ok(first.refresh_token);
    t.not(first.refresh_token, refreshToken, 'rotated');
    t.equal(first.claims()!.sub, fx.userId);
    // Its successor used, a spent token is reuse even within the reuse grace.
    const next = await oidc.refreshTokenGrant(config, first.refresh_token!);
    await t.rejects(
      oidc.refreshTokenGrant(config, refreshToken),
      oauthError('invalid_grant'),
      'a spent refresh token is refused',
    );
    await t.rejects(
      oidc.refreshTokenGrant(config, next.refresh_token!),
      oauthError('invalid_grant'),
      'reuse revoked the whole family',
    );
  });

  t.test(
    'a refresh that narrows the scope: the access token gets the narrower scope, the new refresh token keeps the grant (RFC 6749 §6)',
    async (t) => {
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: fx.redirectUri,
        scope: 'openid email offline_access',
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        state: 's-narrow',
      });
      const res = await browserAuthorize(url, fx.cookie);
      const first = await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), {
        pkceCodeVerifier: verifier,
        expectedState: 's-narrow',
      });
      const narrow = await oidc.refreshTokenGrant(config, first.refresh_token!, { scope: 'openid' });
      t.equal(narrow.scope, 'openid', 'the access token has the narrowed scope');
      t.ok(narrow.refresh_token, 'rotated: the grant had offline_access');
      t.equal(
        decodeJwt(narrow.refresh_token!).scope,
        'openid email offline_access',
        "the new refresh token's scope is the grant's",
      );
      const again = await oidc.refreshTokenGrant(config, narrow.refresh_token!);
      t.equal(again.scope, 'openid email offline_access', 'a later refresh without a scope gets the whole grant back');
      await t.rejects(
        oidc.refreshTokenGrant(config, again.refresh_token!, { scope: 'openid phone' }),
        oauthError('invalid_scope'),
        'never wider than the grant',
      );
      const after = await oidc.refreshTokenGrant(config, again.refresh_token!);
      t.ok(after.refresh_token, 'a request refused for its scope does not spend the token');
    },
  );

  t.test('introspection and revocation', async (t) => {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: fx.redirectUri,
      scope: 'openid offline_access',
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      state: 's2',
    });
    const res = await browserAuthorize(url, fx.cookie);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: 's2',
    });
    const active = await oidc.tokenIntrospection(config, tokens.access_token);
    t.equal(active.active, true);
    t.equal(active.client_id, fx.client.client_id);
    t.equal(active.sub, fx.userId);
    t.equal((await oidc.tokenIntrospection(config, tokens.refresh_token!)).active, true, 'the refresh token too');
    t.equal(
      (await oidc.tokenIntrospection(config, tokens.id_token!)).active,
      false,
      'an ID token is no OAuth token: never active (it was, as a Bearer token)',
    );
    t.equal(
      (await oidc.tokenIntrospection(config, tokens.id_token!, { token_type_hint: 'access_token' })).active,
      false,
      'whatever the hint',
    );
    await oidc.tokenRevocation(config, tokens.refresh_token!);
    t.equal(
      (await oidc.tokenIntrospection(config, tokens.access_token)).active,
      false,
      'revoking the refresh token ends its session',
    );
    await oidc.tokenRevocation(config, 'not-a-token');
    t.pass('unknown tokens revoke with 200');
    t.equal(
      (await oidc.tokenIntrospection(config, accessToken)).active,
      false,
      'the family revoked by reuse is inactive',
    );
  });

  t.test('client credentials', async (t) => {
    const cc = await oidc.clientCredentialsGrant(config, { scope: 'reports:read' });
    const claims = decodeJwt(cc.access_token);
    t.equal(claims.sub, `service_account:${fx.client.client_id}`);
    t.equal(claims.aud, fx.client.client_id);
    t.equal(cc.scope, 'reports:read');
    t.notOk(cc.refresh_token);
    const withResource = await oidc.clientCredentialsGrant(config, {
      scope: 'openid',
      resource: `${fx.server.url}/mcp`,
    });
    t.equal(decodeJwt(withResource.access_token).aud, `${fx.server.url}/mcp`, 'resource binds the audience');
    const intro = await oidc.tokenIntrospection(config, cc.access_token);
    t.equal(intro.active, true);
    t.equal(intro.sub, `service_account:${fx.client.client_id}`);
    await t.rejects(oidc.clientCredentialsGrant(config, { scope: 'admin:all' }), oauthError('invalid_scope'));

    await fx.admin('update_client', { id: fx.client.id, is_active: false });
    await t.rejects(
      oidc.clientCredentialsGrant(config, {}),
      oauthError('invalid_client'),
      'inactive clients get no tokens',
    );
    await fx.admin('update_client', { id: fx.client.id, is_active: true });
  });
});
