/**
 * What /authorize does when the request leaves `response_type` or `response_mode` out: the
 * defaults (`token`, and `query`, which for tokens becomes the fragment so that a token never
 * sits in a query string), and the same requests under `--default-authorize-response-type code`
 * and `--default-authorize-response-mode web_message`.
 */
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { browserAuthorize, oauthFixture, type OAuthFixture } from './setup.js';

const request = (fx: OAuthFixture, extra: Record<string, string> = {}) =>
  `${fx.server.url}/authorize?${new URLSearchParams({
    client_id: fx.client.client_id,
    redirect_uri: fx.redirectUri,
    state: 'st-defaults',
    scope: 'openid email',
    ...extra,
  })}`;

t.test('without flags: an implicit token in the fragment', async (t) => {
  const fx = await oauthFixture();
  t.teardown(() => fx.server.close());
  const res = await browserAuthorize(request(fx), fx.cookie);
  t.equal(res.status, 302);
  const location = new URL(res.headers.get('location') ?? '');
  t.equal(`${location.origin}${location.pathname}`, fx.redirectUri);
  t.equal(location.search, '', 'nothing in the query string');
  const fragment = new URLSearchParams(location.hash.slice(1));
  t.type(fragment.get('access_token'), 'string', 'response_type defaults to token');
  t.equal(fragment.get('state'), 'st-defaults');
});

t.test('--default-authorize-response-type code', async (t) => {
  const fx = await oauthFixture([], { 'default-authorize-response-type': 'code' });
  t.teardown(() => fx.server.close());
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const res = await browserAuthorize(request(fx, { code_challenge: challenge }), fx.cookie);
  t.equal(res.status, 302);
  const location = new URL(res.headers.get('location') ?? '');
  t.type(location.searchParams.get('code'), 'string', 'a code in the query string (response_mode query)');
  t.equal(location.searchParams.get('state'), 'st-defaults');
  t.equal(location.hash, '', 'no token anywhere');
  const token = await fetch(`${fx.server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: location.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: fx.redirectUri,
      client_id: fx.client.client_id,
      client_secret: fx.client.client_secret,
    }),
  });
  t.equal(token.status, 200, 'the code redeems with its verifier (S256 when no method is sent)');
  t.type(((await token.json()) as { access_token?: string }).access_token, 'string');
});

t.test('--default-authorize-response-mode web_message', async (t) => {
  const fx = await oauthFixture([], { 'default-authorize-response-mode': 'web_message' });
  t.teardown(() => fx.server.close());
  const res = await browserAuthorize(request(fx), fx.cookie);
  t.equal(res.status, 200, 'a page, not a redirect');
  t.match(res.headers.get('content-type'), /text\/html/);
  const html = await res.text();
  t.match(html, /authorization_response/);
  t.match(html, /window\.(parent|opener)/);
  t.match(html, /access_token/);
  t.match(html, /st-defaults/);
});
