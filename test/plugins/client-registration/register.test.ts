/**
 * Dynamic client registration end to end (RFC 7591, POST /oauth/register; a self-registered
 * client always meets a consent screen): a public client registers itself, meets the consent screen
 * before any code (leading with the redirect host, warning on loopback-only redirects), redeems
 * its code with PKCE alone, and is remembered once approved; refused metadata answers RFC 7591
 * errors and registers nothing; a denial goes back as access_denied; the endpoint is off unless
 * enabled and has its own per-IP bucket.
 */
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const server = await startTestServer({
  flags: { 'enable-dynamic-client-registration': true, 'app-cookie-secure': false },
});
t.teardown(() => server.close());
const base = server.url;
const REDIRECT = 'http://127.0.0.1:7777/callback';

const register = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

let cookie = '';
t.before(async () => {
  const signup = await fetch(`${base}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email: 'owner@example.com', password: 'Owner-pass-1', confirm_password: 'Owner-pass-1' }),
  });
  cookie = signup.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
});

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};
const authorizeUrl = (clientId: string, challenge: string, extra: Record<string, string> = {}) =>
  `${base}/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    state: 's-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  })}`;
const get = (url: string) => fetch(url, { redirect: 'manual', headers: { cookie } });
const decide = (ticket: string, decision: string) =>
  fetch(`${base}/authorize/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, cookie },
    body: new URLSearchParams({ ticket, decision }),
  });
const ticketOf = (html: string) => /name="ticket" value="([^"]+)"/.exec(html)?.[1] ?? '';

t.test('a public client registers, is advertised, consents, and redeems its code with PKCE alone', async (t) => {
  const discovery = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<
    string,
    unknown
  >;
  t.equal(discovery.registration_endpoint, `${base}/oauth/register`);

  const reg = await register({
    client_name: 'Desk agent',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
  });
  t.equal(reg.status, 201);
  t.match(reg.body, { client_id: String, client_id_issued_at: Number, token_endpoint_auth_method: 'none' });
  t.notOk(reg.body.client_secret, 'no secret is ever issued');
  const clientId = reg.body.client_id as string;

  const { verifier, challenge } = pkce();
  const page = await get(authorizeUrl(clientId, challenge));
  t.equal(page.status, 200, 'the consent screen comes before any code');
  const html = await page.text();
  t.match(html, /<h1>127\.0\.0\.1:7777 wants to access your account<\/h1>/, 'it leads with the redirect host');
  t.match(html, /loopback/, 'and warns when every redirect URI is loopback');
  t.match(html, /Desk agent/);

  const silent = await get(authorizeUrl(clientId, challenge, { prompt: 'none' }));
  t.equal(new URL(silent.headers.get('location')!).searchParams.get('error'), 'consent_required');

  const approved = await decide(ticketOf(html), 'allow');
  t.equal(approved.status, 303);
  const back = await get(new URL(approved.headers.get('location')!, base).href);
  const code = new URL(back.headers.get('location')!).searchParams.get('code');
  t.ok(code, 'after consent, a code');
  t.equal((await decide(ticketOf(html), 'allow')).status, 400, 'a ticket is single use');

  const tokenRes = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: code!,
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    }),
  });
  const tokens = (await tokenRes.json()) as Record<string, unknown>;
  t.equal(tokenRes.status, 200, JSON.stringify(tokens));
  t.ok(tokens.access_token, 'redeemed from the client process, without the browser cookie');

  const again = await get(authorizeUrl(clientId, pkce().challenge));
  t.equal(again.status, 302, 'the approval is remembered');
  t.ok(new URL(again.headers.get('location')!).searchParams.get('code'));

  const wider = await get(authorizeUrl(clientId, pkce().challenge, { scope: 'openid profile email' }));
  t.equal(wider.status, 200, 'more scopes than approved ask again');

  const implicit = await get(authorizeUrl(clientId, challenge, { response_type: 'token' }));
  t.match(implicit.headers.get('location'), /error=unauthorized_client/, 'the implicit flow is refused');
  const credentials = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId }),
  });
  t.equal(credentials.status, 401, 'a public client gets no client_credentials token');
});

t.test('a denial goes back to the client as access_denied', async (t) => {
  const reg = await register({ client_name: 'Denied', redirect_uris: [REDIRECT] });
  const page = await get(authorizeUrl(reg.body.client_id as string, pkce().challenge));
  const denied = await decide(ticketOf(await page.text()), 'deny');
  const target = new URL(denied.headers.get('location')!);
  t.equal(target.searchParams.get('error'), 'access_denied');
  t.equal(target.searchParams.get('state'), 's-1');
});

t.test('refused metadata: RFC 7591 errors, nothing registered', async (t) => {
  const before = await server.kernel.service('client-registry').countSelfRegistered();
  const cases: [string, unknown, string][] = [
    [
      'a confidential client',
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' },
      'invalid_client_metadata',
    ],
    [
      'client_credentials',
      { redirect_uris: [REDIRECT], grant_types: ['client_credentials'] },
      'invalid_client_metadata',
    ],
    ['the implicit flow', { redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata'],
    ['plain http elsewhere', { redirect_uris: ['http://app.example.com/cb'] }, 'invalid_redirect_uri'],
    ['no redirect URIs', { client_name: 'x' }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://app.example.com/cb#x'] }, 'invalid_redirect_uri'],
    ['an array body', [REDIRECT], 'invalid_client_metadata'],
    ['a huge name', { redirect_uris: [REDIRECT], client_name: 'x'.repeat(300) }, 'invalid_client_metadata'],
  ];
  for (const [name, body, error] of cases) {
    const res = await register(body);
    t.equal(res.status, 400, name);
    t.equal(res.body.error, error, name);
  }
  const broken = await register('{not json');
  t.equal(broken.status, 400, 'malformed JSON');
  t.ok(broken.body.error, 'in the RFC 6749 shape');
  t.equal(await server.kernel.service('client-registry').countSelfRegistered(), before, 'nothing was registered');
});

t.test('registration has its own per-IP bucket', async (t) => {
  const statuses: number[] = [];
  for (let i = 0; i < 22; i++)
    statuses.push((await register({ redirect_uris: [REDIRECT] }, { 'x-forwarded-for': '198.51.100.7' })).status);
  t.ok(statuses.includes(429), `the bucket trips: ${statuses.join(',')}`);
});

t.test('without the flag there is no registration endpoint and none advertised', async (t) => {
  const off = await startTestServer({});
  t.teardown(() => off.close());
  t.equal((await fetch(`${off.url}/oauth/register`, { method: 'POST', body: '{}' })).status, 404);
  const doc = (await (await fetch(`${off.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  t.notOk(doc.registration_endpoint);
});
