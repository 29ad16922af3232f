/**
 * An authorization code redeemed after the account changed: it buys nothing the user no longer
 * has (a revoked user, a role taken away since the code was issued).
 */
import t from 'tap';
import * as oidc from 'openid-client';
import { browserAuthorize, oauthFixture } from './setup.js';

t.test('a code redeemed after the account changed', async (t) => {
  const fx = await oauthFixture([], { roles: 'user,editor' });
  t.teardown(() => fx.server.close());
  const base = fx.server.url;
  const users = fx.server.kernel.service('users');
  const sessions = fx.server.kernel.service('sessions');
  const creds = { client_id: fx.client.client_id, client_secret: fx.client.client_secret };

  const codeFor = async (cookie: string) => {
    const verifier = oidc.randomPKCECodeVerifier();
    const q = new URLSearchParams({
      scope: 'openid',
      client_id: fx.client.client_id,
      redirect_uri: fx.redirectUri,
      response_type: 'code',
      state: 'st',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    });
    const res = await browserAuthorize(`${base}/authorize?${q}`, cookie);
    const code = new URL(res.headers.get('location')!).searchParams.get('code');
    if (!code) throw new Error(`no code: ${res.status} ${res.headers.get('location')}`);
    return { code, verifier };
  };
  const redeem = async ({ code, verifier }: { code: string; verifier: string }) => {
    const res = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: fx.redirectUri,
        ...creds,
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const editorCookie = async () => {
    const session = await sessions.create({
      userId: fx.userId,
      roles: ['user', 'editor'],
      scopes: ['openid'],
      amr: ['pwd'],
    });
    return `cookie_session=${encodeURIComponent(sessions.cookieValue(session))}`;
  };

  t.test('a role taken away after the code was issued: invalid_grant, no tokens', async (t) => {
    await users.update(fx.userId, { roles: ['user', 'editor'] });
    const code = await codeFor(await editorCookie());
    await users.update(fx.userId, { roles: ['user'] });
    const r = await redeem(code);
    t.equal(r.status, 400);
    t.equal(r.body.error, 'invalid_grant');
    t.equal(r.body.access_token, undefined);
  });

  t.test('the same code with the role still held is redeemed', async (t) => {
    await users.update(fx.userId, { roles: ['user', 'editor'] });
    const code = await codeFor(await editorCookie());
    const r = await redeem(code);
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.type(r.body.access_token, 'string');
  });

  t.test('access revoked after the code was issued: invalid_grant', async (t) => {
    const code = await codeFor(await fx.newBrowserCookie());
    await users.setAccess(fx.userId, Math.floor(Date.now() / 1000));
    t.teardown(() => users.setAccess(fx.userId, null));
    const r = await redeem(code);
    t.equal(r.status, 400);
    t.equal(r.body.error, 'invalid_grant');
  });
});
