/**
 * Negative paths of the token and authorization endpoints: every RFC 6749 / RFC 7636 error a
 * client can provoke, with the exact `error` code and status.
 */
import t from 'tap';
import * as oidc from 'openid-client';
import { TEST_CLIENT_ID } from '../../helpers/server.js';
import { browserAuthorize, oauthFixture } from './setup.js';

t.test('OAuth error answers', async (t) => {
  const fx = await oauthFixture();
  t.teardown(() => fx.server.close());
  const base = fx.server.url;
  const token = async (body: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string>, headers: res.headers };
  };
  const creds = { client_id: fx.client.client_id, client_secret: fx.client.client_secret };
  const getCode = async (opts: { redirectUri?: string; cookie?: string; clientId?: string; scope?: string } = {}) => {
    const verifier = oidc.randomPKCECodeVerifier();
    const q = new URLSearchParams({
      ...(opts.scope ? { scope: opts.scope } : {}),
      client_id: opts.clientId ?? fx.client.client_id,
      redirect_uri: opts.redirectUri ?? fx.redirectUri,
      response_type: 'code',
      state: 'st',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    });
    const res = await browserAuthorize(`${base}/authorize?${q}`, opts.cookie ?? fx.cookie);
    const loc = new URL(res.headers.get('location')!);
    return { code: loc.searchParams.get('code')!, verifier };
  };
  const redeem = (code: string, verifier: string, extra: Record<string, string> = {}) =>
    token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: fx.redirectUri,
      ...creds,
      ...extra,
    });

  t.test('wrong PKCE verifier', async (t) => {
    const { code } = await getCode();
    const r = await redeem(code, oidc.randomPKCECodeVerifier());
    t.equal(r.status, 400);
    t.equal(r.body.error, 'invalid_grant');
    t.equal(r.headers.get('cache-control'), 'no-store');
  });

  t.test('missing verifier', async (t) => {
    const { code } = await getCode();
    const r = await token({ grant_type: 'authorization_code', code, redirect_uri: fx.redirectUri, ...creds });
    t.equal(r.body.error, 'invalid_request');
  });

  t.test('reused code is refused and revokes what it produced', async (t) => {
    const { code, verifier } = await getCode();
    const first = await redeem(code, verifier);
    t.equal(first.status, 200);
    const again = await redeem(code, verifier);
    t.equal(again.body.error, 'invalid_grant');
    const info = await fetch(`${base}/userinfo`, { headers: { authorization: `Bearer ${first.body.access_token}` } });
    t.equal(info.status, 401, 'tokens of the replayed code no longer work');
  });

  t.test('code for another client', async (t) => {
    const other = await fx.admin('create_client', {
      name: 'other',
      allowed_scopes: ['openid'],
      redirect_uris: [fx.redirectUri],
    });
    const { code, verifier } = await getCode();
    const r = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: fx.redirectUri,
      client_id: (other.client as { client_id: string }).client_id,
      client_secret: other.client_secret as string,
    });
    t.equal(r.body.error, 'invalid_grant');
  });

  t.test('redirect URI mismatch at the token endpoint', async (t) => {
    const { code, verifier } = await getCode();
    const r = await redeem(code, verifier, { redirect_uri: 'http://localhost:5555/other' });
    t.equal(r.body.error, 'invalid_grant');
  });

  t.test('unregistered redirect URI at /authorize is shown, never redirected', async (t) => {
    const q = new URLSearchParams({
      client_id: fx.client.client_id,
      redirect_uri: 'http://localhost:5555/callback/',
      response_type: 'code',
      state: 's',
      code_challenge: 'x'.repeat(43),
    });
    const res = await browserAuthorize(`${base}/authorize?${q}`, fx.cookie);
    t.equal(res.status, 400);
    t.notOk(res.headers.get('location'));
  });

  t.test('expired code', async (t) => {
    const { code, verifier } = await getCode();
    const memory = fx.server.kernel.memory;
    // Age the stored code past its lifetime instead of sleeping for a minute.
    const keys = await memory.keys('oauth:code:');
    for (const k of keys) {
      const v = JSON.parse((await memory.get(k))!);
      v.expiresAt = Date.now() - 1;
      await memory.set(k, JSON.stringify(v), 60_000);
    }
    const r = await redeem(code, verifier);
    t.equal(r.body.error, 'invalid_grant');
  });

  t.test('unknown grant type', async (t) => {
    const r = await token({ grant_type: 'password', username: 'a', password: 'b', ...creds });
    t.equal(r.status, 400);
    t.equal(r.body.error, 'unsupported_grant_type');
  });

  t.test('bad client secret: 401 invalid_client, with a Basic challenge for Basic auth', async (t) => {
    const post = await token({
      grant_type: 'client_credentials',
      client_id: fx.client.client_id,
      client_secret: 'wrong',
    });
    t.equal(post.status, 401);
    t.equal(post.body.error, 'invalid_client');
    const basic = await token(
      { grant_type: 'client_credentials' },
      { authorization: `Basic ${Buffer.from(`${fx.client.client_id}:wrong`).toString('base64')}` },
    );
    t.equal(basic.status, 401);
    t.match(basic.headers.get('www-authenticate'), /^Basic/);
    const good = await token(
      { grant_type: 'client_credentials' },
      { authorization: `Basic ${Buffer.from(`${fx.client.client_id}:${fx.client.client_secret}`).toString('base64')}` },
    );
    t.equal(good.status, 200, 'client_secret_basic works');
  });

  t.test('a registered client is confidential: without its secret it is invalid_client (RFC 6749 §2.3)', async (t) => {
    const { code, verifier } = await getCode();
    const noSecret = await token(
      {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: fx.redirectUri,
        client_id: fx.client.client_id,
      },
      { cookie: fx.cookie },
    );
    t.equal(noSecret.status, 401);
    t.equal(noSecret.body.error, 'invalid_client');
  });

  t.test('a refresh by a registered client without its secret is invalid_client (RFC 6749 §6)', async (t) => {
    const r = await token({ grant_type: 'refresh_token', refresh_token: 'stolen', client_id: fx.client.client_id });
    t.equal(r.status, 401);
    t.equal(r.body.error, 'invalid_client');
  });

  t.test('a client whose allowed_scopes is empty is granted no scope (it was granted every one)', async (t) => {
    const created = await fx.admin('create_client', {
      name: 'no scopes',
      allowed_scopes: [],
      redirect_uris: [fx.redirectUri],
    });
    const client = created.client as { client_id: string };
    const r = await token({
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: created.client_secret as string,
      scope: 'profile offline_access',
    });
    t.equal(r.status, 400);
    t.equal(r.body.error, 'invalid_scope');
  });

  t.test('a wrong token_type_hint only orders the search (RFC 7009 §2.1, RFC 7662 §2.1)', async (t) => {
    const { code, verifier } = await getCode({ scope: 'openid offline_access' });
    const issued = (await redeem(code, verifier)).body as { access_token: string; refresh_token: string };
    t.ok(issued.refresh_token, 'a refresh token to work with');
    const introspect = (tok: string, hint: string) =>
      fetch(`${base}/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tok, token_type_hint: hint, ...creds }),
      }).then(async (r) => (await r.json()) as { active: boolean });
    t.equal(
      (await introspect(issued.access_token, 'refresh_token')).active,
      true,
      'an access token under the refresh_token hint is found',
    );
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.refresh_token, token_type_hint: 'access_token', ...creds }),
    });
    t.equal(revoked.status, 200);
    t.equal(
      (await introspect(issued.refresh_token, 'refresh_token')).active,
      false,
      'a refresh token revoked under the access_token hint is revoked',
    );
    const again = await token({ grant_type: 'refresh_token', refresh_token: issued.refresh_token, ...creds });
    t.equal(again.body.error, 'invalid_grant', 'and no longer refreshes');
  });

  t.test('/userinfo refuses a token issued for a resource, and one of a deactivated client', async (t) => {
    const kernel = fx.server.kernel;
    const user = (await kernel.service('users').findById(fx.userId))!;
    const issue = async (clientId: string, audience?: string) => {
      const session = await kernel
        .service('sessions')
        .create({ userId: user.id, roles: ['user'], scopes: ['openid'], amr: ['pwd'], clientId });
      return (
        await kernel
          .service('tokens')
          .issue({ user, session, scopes: ['openid'], roles: ['user'], clientId, ...(audience ? { audience } : {}) })
      ).access_token;
    };
    const info = (bearer: string) => fetch(`${base}/userinfo`, { headers: { authorization: `Bearer ${bearer}` } });
    t.equal((await info(await issue(fx.client.client_id))).status, 200, "the client's own token reads it");
    const forApi = await info(await issue(fx.client.client_id, 'https://api.example.com/'));
    t.equal(forApi.status, 401, 'a token for https://api.example.com/ is for that API only (RFC 8707)');
    const other = await fx.admin('create_client', {
      name: 'soon inactive',
      allowed_scopes: ['openid'],
      redirect_uris: [fx.redirectUri],
    });
    const otherClient = other.client as { client_id: string; id: string };
    const before = await issue(otherClient.client_id);
    t.equal((await info(before)).status, 200);
    await fx.admin('update_client', { id: otherClient.id, is_active: false });
    t.equal((await info(before)).status, 401, 'deactivating the client ends its tokens here');
  });

  t.test(
    "a code redeemed while every session of the user is ended is invalid_grant, in OAuth's envelope",
    async (t) => {
      const { code, verifier } = await getCode();
      const users = fx.server.kernel.service('users');
      const findById = users.findById;
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let reached!: () => void;
      const entered = new Promise<void>((r) => (reached = r));
      users.findById = async (id: string) => {
        users.findById = findById;
        const user = await findById.call(users, id);
        reached();
        await gate;
        return user;
      };
      const redeeming = redeem(code, verifier);
      await entered;
      await fx.server.kernel.service('sessions').revokeAll(fx.userId);
      release();
      const r = await redeeming;
      t.equal(r.status, 400);
      t.equal(r.body.error, 'invalid_grant');
      fx.cookie = await fx.newBrowserCookie(); // the revoke ended the browser session the later cases use
    },
  );

  t.test('a NUL in client_id is a 4xx, not a 500', async (t) => {
    const r = await token({ grant_type: 'client_credentials', client_id: 'a\u0000b', client_secret: 'x' });
    t.equal(r.status, 401);
    t.equal(r.body.error, 'invalid_client');
  });

  t.test('public redemption (the built-in client) needs the approving browser session', async (t) => {
    const builtIn = TEST_CLIENT_ID;
    const { code, verifier } = await getCode({ clientId: builtIn });
    const noCookie = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: fx.redirectUri,
      client_id: builtIn,
    });
    t.equal(noCookie.body.error, 'invalid_grant');
    const second = await getCode({ clientId: builtIn });
    const ok = await token(
      {
        grant_type: 'authorization_code',
        code: second.code,
        code_verifier: second.verifier,
        redirect_uri: fx.redirectUri,
        client_id: builtIn,
      },
      { cookie: fx.cookie },
    );
    t.equal(ok.status, 200);
    t.ok(ok.body.id_token);
  });

  t.test(
    'code and refresh grants without any client credentials are the built-in client (client_id is required only for client_credentials and exchange)',
    async (t) => {
      const builtIn = TEST_CLIENT_ID;
      const first = await getCode({ clientId: builtIn, scope: 'openid offline_access' });
      const redeemed = await token(
        {
          grant_type: 'authorization_code',
          code: first.code,
          code_verifier: first.verifier,
          redirect_uri: fx.redirectUri,
        },
        { cookie: fx.cookie },
      );
      t.equal(redeemed.status, 200, "the built-in client's code redeems without client_id");
      const refreshed = await token({
        grant_type: 'refresh_token',
        refresh_token: String(redeemed.body.refresh_token),
      });
      t.equal(refreshed.status, 200, 'and its refresh token refreshes without client_id');
      t.ok(refreshed.body.refresh_token, 'rotated');

      // A registered (confidential) client's grants are bound to it: no credentials is not it.
      const theirs = await getCode({ scope: 'openid offline_access' });
      const anonymous = await token(
        {
          grant_type: 'authorization_code',
          code: theirs.code,
          code_verifier: theirs.verifier,
          redirect_uri: fx.redirectUri,
        },
        { cookie: fx.cookie },
      );
      t.equal(anonymous.status, 400, "a registered client's code is not redeemed without its credentials");
      t.equal(anonymous.body.error, 'invalid_grant');
      const again = await getCode({ scope: 'openid offline_access' });
      const own = await redeem(again.code, again.verifier);
      t.equal(own.status, 200);
      const stolen = await token({ grant_type: 'refresh_token', refresh_token: String(own.body.refresh_token) });
      t.equal(stolen.status, 400, "a registered client's refresh token alone is not enough");
      t.equal(stolen.body.error, 'invalid_grant');
      const noId = await token({ grant_type: 'client_credentials' });
      t.equal(noId.status, 401, 'client_credentials still needs the client');
      t.equal(noId.body.error, 'invalid_client');
    },
  );

  t.test("refusals made before the handler runs answer in RFC 6749 §5.2's shape on the token endpoints", async (t) => {
    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
      const badJson = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"grant_type":',
      });
      t.equal(badJson.status, 400, `${path}: malformed JSON is 400`);
      t.same(
        await badJson.json(),
        { error: 'invalid_request', error_description: 'request body is not valid JSON' },
        `${path}: in OAuth's shape`,
      );
      t.equal(badJson.headers.get('cache-control'), 'no-store');
      const wrongMethod = await fetch(`${base}${path}`);
      t.equal(wrongMethod.status, 405, `${path}: GET is 405`);
      t.match(await wrongMethod.json(), { error: 'invalid_request' });
      t.equal(wrongMethod.headers.get('allow'), 'POST');
    }
    const wrongType = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<x/>',
    });
    t.equal(wrongType.status, 415);
    t.match(await wrongType.json(), { error: 'invalid_request' });
    const rest = await fetch(`${base}/v1/meta`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: '{',
    });
    t.match(await rest.json(), { code: 'invalid_argument' }, 'REST keeps its own envelope');
  });

  t.test('authorize errors go back to the client with state', async (t) => {
    const q = new URLSearchParams({
      client_id: fx.client.client_id,
      redirect_uri: fx.redirectUri,
      response_type: 'code',
      state: 'abc',
    });
    const res = await browserAuthorize(`${base}/authorize?${q}`, fx.cookie);
    const loc = new URL(res.headers.get('location')!);
    t.equal(loc.searchParams.get('error'), 'invalid_request', 'PKCE is required');
    t.equal(loc.searchParams.get('state'), 'abc');
    const none = await browserAuthorize(
      `${base}/authorize?${new URLSearchParams({ ...Object.fromEntries(q), code_challenge: 'x'.repeat(43), prompt: 'none' })}`,
      undefined,
    );
    t.equal(new URL(none.headers.get('location')!).searchParams.get('error'), 'login_required');
    const implicit = await browserAuthorize(
      `${base}/authorize?${new URLSearchParams({ client_id: fx.client.client_id, redirect_uri: fx.redirectUri, response_type: 'token', state: 'i', response_mode: 'query' })}`,
      fx.cookie,
    );
    const iloc = new URL(implicit.headers.get('location')!);
    t.equal(iloc.search, '', 'implicit results never go in the query');
    t.ok(new URLSearchParams(iloc.hash.slice(1)).get('access_token'));
    // OIDC Core §3.2.2.1: an implicit ID token needs a nonce.
    const implicitQuery = {
      client_id: fx.client.client_id,
      redirect_uri: fx.redirectUri,
      response_type: 'token',
      scope: 'openid',
      state: 'n',
    };
    const noNonce = new URL(
      (await browserAuthorize(`${base}/authorize?${new URLSearchParams(implicitQuery)}`, fx.cookie)).headers.get(
        'location',
      )!,
    );
    t.ok(new URLSearchParams(noNonce.hash.slice(1)).get('access_token'));
    t.equal(new URLSearchParams(noNonce.hash.slice(1)).get('id_token'), null, 'no nonce, no ID token');
    const withNonce = new URL(
      (
        await browserAuthorize(
          `${base}/authorize?${new URLSearchParams({ ...implicitQuery, nonce: 'n-1' })}`,
          fx.cookie,
        )
      ).headers.get('location')!,
    );
    t.ok(new URLSearchParams(withNonce.hash.slice(1)).get('id_token'), 'with a nonce the ID token comes');
  });

  t.test('web_message answers a page that only the client origin may frame, posting to that origin', async (t) => {
    const q = new URLSearchParams({
      client_id: fx.client.client_id,
      redirect_uri: fx.redirectUri,
      response_type: 'token',
      state: 'wm',
      response_mode: 'web_message',
    });
    const res = await browserAuthorize(`${base}/authorize?${q}`, fx.cookie);
    t.equal(res.status, 200);
    const origin = new URL(fx.redirectUri).origin;
    t.match(res.headers.get('content-security-policy'), new RegExp(`frame-ancestors ${origin}$`));
    t.equal(res.headers.get('x-frame-options'), null, 'no DENY overriding frame-ancestors');
    const html = await res.text();
    t.match(html, /"type":"authorization_response"/);
    t.match(html, /"state":"wm"/);
    t.ok(html.includes(JSON.stringify(origin)), 'postMessage target is the client origin, not *');
  });

  t.test('logout ends the session and redirects only to registered destinations', async (t) => {
    const cookie = await fx.newBrowserCookie();
    const bad = await browserAuthorize(
      `${base}/logout?client_id=${fx.client.client_id}&post_logout_redirect_uri=${encodeURIComponent('https://evil.example.com/')}`,
      cookie,
    );
    t.equal(bad.status, 400);
    const cookie2 = await fx.newBrowserCookie();
    const ok = await browserAuthorize(
      `${base}/logout?client_id=${fx.client.client_id}&post_logout_redirect_uri=${encodeURIComponent('http://localhost:5555/bye')}&state=z`,
      cookie2,
    );
    t.equal(ok.status, 302);
    t.equal(ok.headers.get('location'), 'http://localhost:5555/bye?state=z');
    const after = await browserAuthorize(
      `${base}/authorize?${new URLSearchParams({ client_id: fx.client.client_id, redirect_uri: fx.redirectUri, response_type: 'code', state: 'q', code_challenge: 'x'.repeat(43), prompt: 'none' })}`,
      cookie2,
    );
    t.equal(new URL(after.headers.get('location')!).searchParams.get('error'), 'login_required', 'the session is gone');
  });

  t.test('an id_token_hint counts only when this service signed it; expired ones do', async (t) => {
    const kernel = fx.server.kernel;
    const tokens = kernel.service('tokens');
    const user = (await kernel.service('users').findById(fx.userId))!;
    const session = await kernel
      .service('sessions')
      .create({ userId: user.id, roles: ['user'], scopes: ['openid'], amr: ['pwd'], clientId: fx.client.client_id });
    const real = (
      await tokens.issue({
        user,
        session,
        scopes: ['openid'],
        roles: ['user'],
        clientId: fx.client.client_id,
        accessTtlSeconds: 1,
      })
    ).id_token;
    const [h, p] = real.split('.');
    const forged = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.`;
    t.equal((await tokens.verifyIdTokenHint(forged))?.aud, undefined, 'an unsigned hint is no hint');
    t.equal(await tokens.verifyIdTokenHint(`${h}.${p}.${'A'.repeat(342)}`), null, 'a wrong signature is no hint');
    await new Promise((r) => setTimeout(r, 2100)); // the ID token (1 s) has expired
    t.equal(
      (await tokens.verifyIdTokenHint(real))?.aud,
      fx.client.client_id,
      'an expired ID token of ours names its client',
    );
    const mismatch = await browserAuthorize(
      `${base}/logout?client_id=${TEST_CLIENT_ID}&id_token_hint=${real}&post_logout_redirect_uri=${encodeURIComponent('http://localhost:5555/bye')}`,
      undefined,
    );
    t.equal(mismatch.status, 400, 'client_id and the hint must agree');
    const viaHint = await browserAuthorize(
      `${base}/logout?id_token_hint=${real}&post_logout_redirect_uri=${encodeURIComponent('http://localhost:5555/bye')}&state=h`,
      undefined,
    );
    t.equal(viaHint.headers.get('location'), 'http://localhost:5555/bye?state=h', 'the hint alone names the client');
  });
});
