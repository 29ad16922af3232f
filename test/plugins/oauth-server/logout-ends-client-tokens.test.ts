/**
 * Signing out of the browser ends the tokens a client redeemed from that browser session
 * (access tokens are stateful; OIDC RP-Initiated Logout 1.0): after the
 * authorization-code flow with PKCE, GET /logout with the browser's cookie makes /userinfo answer
 * 401 for the redeemed access token, and the refresh token is refused. Another browser session's
 * tokens live on.
 */
import t from 'tap';
import * as oidc from 'openid-client';
import { browserAuthorize, oauthFixture } from './setup.js';

t.test('GET /logout ends the tokens redeemed through /authorize + /oauth/token', async (t) => {
  const fx = await oauthFixture();
  t.teardown(() => fx.server.close());
  const config = await oidc.discovery(new URL(fx.server.url), fx.client.client_id, fx.client.client_secret, undefined, {
    execute: [oidc.allowInsecureRequests],
  });

  /** The code + PKCE flow from the browser holding `cookie`, redeemed by the client. */
  const signInThrough = async (cookie: string) => {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: fx.redirectUri,
      response_type: 'code',
      scope: 'openid email offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st',
    });
    const res = await browserAuthorize(url, cookie);
    t.equal(res.status, 302);
    return { callback: new URL(res.headers.get('location')!), verifier };
  };
  const redeem = ({ callback, verifier }: { callback: URL; verifier: string }) =>
    oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: 'st' });
  const userinfo = (token: string) =>
    fetch(`${fx.server.url}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
  const logout = (cookie: string) => fetch(`${fx.server.url}/logout`, { redirect: 'manual', headers: { cookie } });

  t.test('the redeemed access and refresh tokens end with the browser session', async (t) => {
    const cookie = await fx.newBrowserCookie();
    const tokens = await redeem(await signInThrough(cookie));
    t.equal((await userinfo(tokens.access_token)).status, 200, 'valid before the logout');

    const other = await fx.newBrowserCookie();
    const others = await redeem(await signInThrough(other));

    const out = await logout(cookie);
    t.equal(out.status, 200, 'the signed-out page');
    t.match(out.headers.get('set-cookie') ?? '', /cookie_session=;/, 'the browser cookie is cleared');

    const after = await userinfo(tokens.access_token);
    t.equal(after.status, 401, 'the access token is dead at once');
    t.match(after.headers.get('www-authenticate') ?? '', /invalid_token/);
    await t.rejects(
      oidc.refreshTokenGrant(config, tokens.refresh_token!),
      { error: 'invalid_grant' } as unknown as Error,
      'the refresh token is dead too',
    );
    t.equal((await userinfo(others.access_token)).status, 200, "another browser session's tokens live on");
  });

  t.test('a code redeemed after the logout buys nothing', async (t) => {
    const cookie = await fx.newBrowserCookie();
    const pending = await signInThrough(cookie);
    t.equal((await logout(cookie)).status, 200);
    await t.rejects(redeem(pending), { error: 'invalid_grant' } as unknown as Error);
  });

  t.test('ending the client session (RFC 7009 revocation) leaves the browser signed in', async (t) => {
    const cookie = await fx.newBrowserCookie();
    const tokens = await redeem(await signInThrough(cookie));
    await oidc.tokenRevocation(config, tokens.access_token);
    t.equal((await userinfo(tokens.access_token)).status, 401);
    const again = await redeem(await signInThrough(cookie));
    t.equal((await userinfo(again.access_token)).status, 200, 'the browser session still approves');
  });
});
