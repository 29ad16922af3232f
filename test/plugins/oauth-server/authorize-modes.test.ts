/**
 * /authorize response modes and prompts not covered by the flow tests: form_post (an
 * auto-submitting form to the redirect URI, nothing in any URL), prompt=login (re-authentication
 * even with a session, and only a sign-in after the request satisfies it) and prompt=none without
 * a session (login_required at the redirect URI).
 */
import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { accountsPlugin } from '../../../plugins/accounts/index.js';
import { loginPagePlugin } from '../../../plugins/login-page/index.js';
import { SESSION_COOKIE } from '../../../plugins/sessions/index.js';
import { browserAuthorize, oauthFixture } from './setup.js';

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** The hidden inputs of a form_post page, decoded. */
function hiddenInputs(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  const unescape = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    out[unescape(m[1])] = unescape(m[2]);
  return out;
}

t.test('authorize response modes and prompts', async (t) => {
  const fx = await oauthFixture([accountsPlugin, loginPagePlugin], { 'enable-login-page': true });
  t.teardown(() => fx.server.close());
  const base = fx.server.url;
  const authorizeUrl = (extra: Record<string, string>) =>
    `${base}/authorize?${new URLSearchParams({ client_id: fx.client.client_id, redirect_uri: fx.redirectUri, response_type: 'code', scope: 'openid email', ...extra })}`;
  const redeem = (code: string, verifier: string) =>
    fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${fx.client.client_id}:${fx.client.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: fx.redirectUri,
      }).toString(),
    });

  t.test('form_post: an auto-submitting form posts code, state and iss to the redirect URI', async (t) => {
    const p = pkce();
    const state = `st"<&'${randomBytes(4).toString('hex')}`;
    const res = await browserAuthorize(
      authorizeUrl({ response_mode: 'form_post', state, code_challenge: p.challenge, code_challenge_method: 'S256' }),
      fx.cookie,
    );
    t.equal(res.status, 200, 'a page, not a redirect');
    t.equal(res.headers.get('location'), null, 'nothing goes into a URL');
    t.match(res.headers.get('content-type'), /^text\/html/);
    t.equal(res.headers.get('cache-control'), 'no-store');
    const html = await res.text();
    t.match(
      html,
      new RegExp(`<form method="post" action="${fx.redirectUri.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}">`),
      'posts to the exact redirect URI, no query added',
    );
    t.match(html, /onload="document\.forms\[0\]\.submit\(\)"/, 'submits itself');
    t.match(html, /<noscript><button type="submit">/, 'and works without JavaScript');
    t.notMatch(html, /<input[^>]*name="state"[^>]*value="st"</, 'the state is HTML-escaped');
    const fields = hiddenInputs(html);
    t.same(Object.keys(fields).sort(), ['code', 'iss', 'state']);
    t.equal(fields.state, state, 'state round-trips exactly');
    t.equal(fields.iss, fx.server.url);
    const csp = res.headers.get('content-security-policy') ?? '';
    t.match(csp, /default-src 'none'/);
    t.notMatch(csp, /form-action 'none'/, 'the form may be submitted');
    const tokens = await redeem(fields.code, p.verifier);
    t.equal(tokens.status, 200, 'the posted code is a working code');
    t.ok(((await tokens.json()) as { id_token?: string }).id_token);
  });

  t.test('form_post also carries errors', async (t) => {
    const res = await browserAuthorize(
      authorizeUrl({ response_mode: 'form_post', state: 'e1', prompt: 'none', code_challenge: pkce().challenge }),
      undefined,
    );
    t.equal(res.status, 200);
    t.equal(res.headers.get('location'), null);
    const fields = hiddenInputs(await res.text());
    t.equal(fields.error, 'login_required');
    t.equal(fields.state, 'e1');
    t.notOk(fields.code);
  });

  t.test('prompt=none without a session answers login_required at the redirect URI', async (t) => {
    const res = await browserAuthorize(
      authorizeUrl({ prompt: 'none', state: 'n1', code_challenge: pkce().challenge }),
      undefined,
    );
    t.equal(res.status, 302);
    const loc = new URL(res.headers.get('location')!);
    t.equal(loc.origin + loc.pathname, fx.redirectUri);
    t.equal(loc.searchParams.get('error'), 'login_required');
    t.equal(loc.searchParams.get('state'), 'n1');
    t.equal(loc.searchParams.get('code'), null);
  });

  t.test('prompt=none with a session answers a code without any page', async (t) => {
    const res = await browserAuthorize(
      authorizeUrl({ prompt: 'none', state: 'n2', code_challenge: pkce().challenge }),
      fx.cookie,
    );
    const loc = new URL(res.headers.get('location')!);
    t.ok(loc.searchParams.get('code'));
    t.equal(loc.searchParams.get('state'), 'n2');
  });

  t.test('prompt=login sends a signed-in user to the login page; only a new sign-in gets the code', async (t) => {
    const p = pkce();
    const oldCookie = await fx.newBrowserCookie();
    const res = await browserAuthorize(
      authorizeUrl({ prompt: 'login', state: 'l1', code_challenge: p.challenge, code_challenge_method: 'S256' }),
      oldCookie,
    );
    t.equal(res.status, 302);
    const login = new URL(res.headers.get('location')!);
    t.equal(login.pathname, '/app', 'the hosted login page, despite the session');
    const returnTo = login.searchParams.get('return_to')!;
    t.match(returnTo, /^\/authorize\?/);
    const back = new URLSearchParams(returnTo.slice('/authorize?'.length));
    t.equal(back.get('prompt'), null, 'prompt=login is not sent back (it would loop)');
    t.equal(back.get('state'), 'l1');

    // The old session, even coming back through return_to, is sent to sign in again.
    const replay = await browserAuthorize(`${base}${returnTo}`, oldCookie);
    t.equal(
      new URL(replay.headers.get('location')!).pathname,
      '/app',
      'an earlier session does not satisfy prompt=login',
    );

    // A real password sign-in after the request (what the login page's form does).
    const signIn = await fetch(`${base}/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ email: 'ada@example.com', password: 'correct-horse-1' }),
    });
    t.equal(signIn.status, 200, 'signed in again');
    const setCookie = signIn.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    t.ok(setCookie, 'a new browser session');
    const newCookie = setCookie!.split(';')[0];
    const done = await browserAuthorize(`${base}${returnTo}`, newCookie);
    const cb = new URL(done.headers.get('location')!);
    t.equal(cb.origin + cb.pathname, fx.redirectUri, 'back at the client');
    t.equal(cb.searchParams.get('state'), 'l1');
    const code = cb.searchParams.get('code')!;
    t.ok(code);
    const tokens = await redeem(code, p.verifier);
    t.equal(tokens.status, 200);
  });

  t.test('prompt=login without a login page answers login_required', async (t) => {
    const fx2 = await oauthFixture();
    t.teardown(() => fx2.server.close());
    const res = await browserAuthorize(
      `${fx2.server.url}/authorize?${new URLSearchParams({ client_id: fx2.client.client_id, redirect_uri: fx2.redirectUri, response_type: 'code', prompt: 'login', state: 'l2', code_challenge: pkce().challenge })}`,
      fx2.cookie,
    );
    const loc = new URL(res.headers.get('location')!);
    t.equal(loc.searchParams.get('error'), 'login_required');
    t.equal(loc.searchParams.get('state'), 'l2');
  });
});
