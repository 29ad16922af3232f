/**
 * Client ID metadata documents end to end (draft-ietf-oauth-client-id-metadata-document): an
 * https `client_id` is fetched from a local https host through the service's guarded outbound
 * client, validated and cached; the client then runs the authorization-code flow with PKCE after
 * the consent screen, like a self-registered client. Refused: a document whose `client_id` is not
 * its URL, one too large, one with a shared-secret auth method or bad redirect URIs, a redirect
 * URI outside the document's list, a host outside `--client-id-metadata-allowed-domains`, and,
 * on a service whose guard allows no loopback, every URL that is or resolves to a loopback,
 * private or link-local address, before any request reaches it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import t, { type Test } from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { startDocumentHost } from './document-host.js';

const host = await startDocumentHost();
t.teardown(() => host.close());

// Loopback is reachable only because this test lists it; the strict service below does not.
const server = await startTestServer({
  flags: {
    'enable-client-id-metadata-document': true,
    'client-id-metadata-allowed-domains': ['localhost'],
    'outbound-allow-cidrs': ['127.0.0.1/32', '::1/128'],
    'app-cookie-secure': false,
  },
});
t.teardown(() => server.close());
const strict = await startTestServer({ flags: { 'enable-client-id-metadata-document': true } });
t.teardown(() => strict.close());
const base = server.url;

const REDIRECT = 'http://127.0.0.1:7777/callback';
const WEB_REDIRECT = 'https://app.example/callback';
const document = (clientId: string, extra: Record<string, unknown> = {}) => ({
  client_id: clientId,
  client_name: 'Desk agent',
  redirect_uris: [REDIRECT],
  token_endpoint_auth_method: 'none',
  ...extra,
});
const serveDocument = (path: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  host.serveJson(path, document(host.url + path, extra), headers);

async function signIn(url: string): Promise<string> {
  const signup = await fetch(`${url}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email: 'owner@example.com', password: 'Owner-pass-1', confirm_password: 'Owner-pass-1' }),
  });
  return signup.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}
const cookie = await signIn(base);
const strictCookie = await signIn(strict.url);

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};
const authorizeUrl = (clientId: string, extra: Record<string, string> = {}, url = base) =>
  `${url}/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    state: 's-1',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...extra,
  })}`;
const get = (url: string, withCookie = cookie) => fetch(url, { redirect: 'manual', headers: { cookie: withCookie } });
const ticketOf = (html: string) => /name="ticket" value="([^"]+)"/.exec(html)?.[1] ?? '';
const token = (params: Record<string, string>) =>
  fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

/** The error page /authorize shows when the client cannot be trusted (never a redirect). */
async function refusal(t: Test, url: string, pattern: RegExp, withCookie = cookie): Promise<void> {
  const res = await get(url, withCookie);
  t.equal(res.status, 400, 'refused with a 400 page');
  t.equal(res.headers.get('location'), null, 'nothing is sent to the redirect URI');
  const html = await res.text();
  t.match(html, /invalid_client|invalid_request/);
  t.match(html, pattern);
}

t.test('discovery advertises client ID metadata documents only where they are served', async (t) => {
  const doc = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  t.equal(doc.client_id_metadata_document_supported, true);
  const plain = await startTestServer();
  t.teardown(() => plain.close());
  const off = (await (await fetch(`${plain.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  t.equal(off.client_id_metadata_document_supported, false);
});

t.test('a document client consents, gets a code, and redeems it with PKCE alone', async (t) => {
  const clientId = serveDocument('/apps/desk.json');
  const { verifier, challenge } = pkce();
  const page = await get(authorizeUrl(clientId, { code_challenge: challenge }));
  t.equal(page.status, 200, 'the consent screen comes before any code');
  const html = await page.text();
  t.match(html, /<h1>127\.0\.0\.1:7777 wants to access your account<\/h1>/, 'it leads with the redirect host');
  t.match(html, /loopback/, 'and warns that every redirect URI is loopback');
  t.match(html, /Desk agent/);
  t.match(html, new RegExp(`published by localhost:${new URL(host.url).port}`), 'and names the document host');

  const silent = await get(authorizeUrl(clientId, { prompt: 'none' }));
  t.equal(new URL(silent.headers.get('location')!).searchParams.get('error'), 'consent_required');

  const approved = await fetch(`${base}/authorize/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, cookie },
    body: new URLSearchParams({ ticket: ticketOf(html), decision: 'allow' }),
  });
  t.equal(approved.status, 303);
  const approvedRequest = new URL(approved.headers.get('location')!, base).href;
  const back = await get(approvedRequest);
  const code = new URL(back.headers.get('location')!).searchParams.get('code');
  t.ok(code, 'after consent, a code');
  const replayed = await get(approvedRequest);
  t.equal(replayed.status, 200, 'the approval admitted that one request: asked again');

  const wrong = await token({
    grant_type: 'authorization_code',
    code: code!,
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_verifier: pkce().verifier,
  });
  t.equal(wrong.body.error, 'invalid_grant', 'a wrong verifier is refused');

  // A document can change after an approval (its redirect URIs with it): consent every time.
  const second = await get(authorizeUrl(clientId, { code_challenge: challenge }));
  t.equal(second.status, 200, 'the consent screen again, not a remembered approval');
  const again = await fetch(`${base}/authorize/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, cookie },
    body: new URLSearchParams({ ticket: ticketOf(await second.text()), decision: 'allow' }),
  });
  const back2 = await get(new URL(again.headers.get('location')!, base).href);
  const code2 = new URL(back2.headers.get('location')!).searchParams.get('code');
  t.ok(code2, 'a code after the second approval');
  const silentAfter = await get(authorizeUrl(clientId, { prompt: 'none' }));
  t.equal(
    new URL(silentAfter.headers.get('location')!).searchParams.get('error'),
    'consent_required',
    'prompt=none never skips the consent of a document client',
  );
  const tokens = await token({
    grant_type: 'authorization_code',
    code: code2!,
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  t.equal(tokens.status, 200, tokens.status === 200 ? 'redeemed' : JSON.stringify(tokens.body));
  t.equal(decodeJwt(tokens.body.access_token as string).client_id, clientId, 'the token names the document URL');
  t.equal(host.hits('/apps/desk.json'), 1, 'the document was fetched once and then cached');
});

t.test('a document client is public and self-asserted: no implicit flow, PKCE required', async (t) => {
  const clientId = serveDocument('/apps/public.json');
  const implicit = await get(authorizeUrl(clientId, { response_type: 'token' }));
  t.equal(new URL(implicit.headers.get('location')!).hash.includes('unauthorized_client'), true);
  const noPkce = await get(authorizeUrl(clientId, { code_challenge: '' }));
  t.equal(new URL(noPkce.headers.get('location')!).searchParams.get('error'), 'invalid_request');
  const secret = await token({ grant_type: 'client_credentials', client_id: clientId, client_secret: 'anything' });
  t.equal(secret.status, 401, 'no secret authenticates a document client');
});

t.test('a redirect URI outside the document is refused before anything is sent', async (t) => {
  const clientId = serveDocument('/apps/redirects.json', { redirect_uris: [REDIRECT, WEB_REDIRECT] });
  await refusal(t, authorizeUrl(clientId, { redirect_uri: 'http://127.0.0.1:7777/other' }), /not registered/);
  await refusal(t, authorizeUrl(clientId, { redirect_uri: `${REDIRECT}/` }), /not registered/, cookie);
  const ok = await get(authorizeUrl(clientId, { redirect_uri: WEB_REDIRECT }));
  t.equal(ok.status, 200, 'a listed https redirect URI reaches the consent screen');
  t.notMatch(await ok.text(), /loopback/, 'no loopback warning when one redirect URI is not loopback');
});

t.test('documents that break the rules are refused with the reason', async (t) => {
  const other = host.url + '/apps/desk.json';
  host.serveJson('/apps/mismatch.json', document(other));
  await refusal(t, authorizeUrl(host.url + '/apps/mismatch.json'), /does not equal its URL/);

  host.serveJson('/apps/large.json', document(host.url + '/apps/large.json', { logo: 'x'.repeat(6000) }));
  await refusal(t, authorizeUrl(host.url + '/apps/large.json'), /larger than 5120 bytes/);

  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['/apps/http.json', { redirect_uris: ['http://app.example/cb'] }, /https, or http on loopback/],
    ['/apps/none.json', { redirect_uris: [] }, /must not be empty/],
    ['/apps/secret.json', { token_endpoint_auth_method: 'client_secret_basic' }, /no shared secret/],
    ['/apps/has-secret.json', { client_secret: 'shh' }, /must not contain a client_secret/],
    ['/apps/pkjwt.json', { token_endpoint_auth_method: 'private_key_jwt' }, /needs a jwks_uri/],
    ['/apps/grant.json', { grant_types: ['client_credentials'] }, /client_credentials is not allowed/],
  ];
  for (const [path, extra, pattern] of cases) {
    serveDocument(path, extra);
    await refusal(t, authorizeUrl(host.url + path), pattern);
  }

  host.serve('/apps/html.json', { headers: { 'content-type': 'text/html' }, body: '{}' });
  await refusal(t, authorizeUrl(host.url + '/apps/html.json'), /not served as application\/json/);
  host.serve('/apps/broken.json', { headers: { 'content-type': 'application/json' }, body: '{"client_id":' });
  await refusal(t, authorizeUrl(host.url + '/apps/broken.json'), /not valid JSON/);
  host.serve('/apps/moved.json', { status: 302, headers: { location: `${host.url}/apps/desk.json` }, body: '' });
  const before = host.hits('/apps/desk.json');
  await refusal(t, authorizeUrl(host.url + '/apps/moved.json'), /HTTP 302; redirects are not followed/);
  t.equal(host.hits('/apps/desk.json'), before, 'the redirect was not followed');
  await refusal(t, authorizeUrl(host.url + '/apps/missing.json'), /HTTP 404/);
});

t.test('only allowed hosts serve documents; a bare origin, a dot segment or a broken URL is no document', async (t) => {
  host.serveJson('/apps/ip.json', document(host.ipUrl + '/apps/ip.json'));
  await refusal(t, authorizeUrl(host.ipUrl + '/apps/ip.json'), /127\.0\.0\.1 is not allowed to serve/);
  t.equal(host.hits('/apps/ip.json'), 0, 'a host outside the list is never asked');
  await refusal(t, authorizeUrl(host.url), /unknown client_id/);
  await refusal(t, authorizeUrl(`${host.url}/apps/x/../desk.json`), /dot path segments/);
  await refusal(t, authorizeUrl(`${host.url}/apps/desk.json#frag`), /fragment/);
  await refusal(t, authorizeUrl('https://localhost:1/apps/closed.json'), /could not be fetched: the request failed/);
  await refusal(t, authorizeUrl(`https://localhost/${'a'.repeat(3000)}.json`), /unknown client_id/);
  await refusal(t, authorizeUrl('https://local%20host/apps/desk.json'), /unknown client_id/);
});

t.test('the token endpoint refuses a document client whose document is refused', async (t) => {
  const r = await token({
    grant_type: 'authorization_code',
    code: 'x',
    client_id: host.url + '/apps/mismatch.json',
    redirect_uri: REDIRECT,
    code_verifier: pkce().verifier,
  });
  t.equal(r.status, 401);
  t.equal(r.body.error, 'invalid_client');
});

t.test('a private_key_jwt document client authenticates with keys from its jwks_uri', async (t) => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const stranger = await generateKeyPair('ES256');
  host.serveJson('/apps/keyed-jwks.json', { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] });
  const clientId = serveDocument('/apps/keyed.json', {
    token_endpoint_auth_method: 'private_key_jwt',
    jwks_uri: `${host.url}/apps/keyed-jwks.json`,
  });
  const assertion = (key = privateKey, jti = randomBytes(8).toString('hex')) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(`${base}/oauth/token`)
      .setIssuedAt()
      .setExpirationTime('2m')
      .setJti(jti)
      .sign(key);

  const { verifier, challenge } = pkce();
  const page = await get(authorizeUrl(clientId, { code_challenge: challenge }));
  t.equal(page.status, 200, 'its authorization request reaches the consent screen');
  const approved = await fetch(`${base}/authorize/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, cookie },
    body: new URLSearchParams({ ticket: ticketOf(await page.text()), decision: 'allow' }),
  });
  const back = await get(new URL(approved.headers.get('location')!, base).href);
  const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
  const redeem = (extra: Record<string, string>) =>
    token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, ...extra });

  const bare = await redeem({ client_id: clientId });
  t.match(bare, { status: 401, body: { error: 'invalid_client', error_description: /private_key_jwt/ } });
  const type = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
  const foreign = await redeem({ client_assertion_type: type, client_assertion: await assertion(stranger.privateKey) });
  t.match(foreign, { status: 401, body: { error: 'invalid_client' } }, 'a key outside its JWKS is refused');
  const signed = await assertion();
  const ok = await redeem({ client_assertion_type: type, client_assertion: signed });
  t.equal(ok.status, 200, ok.status === 200 ? 'redeemed with the assertion' : JSON.stringify(ok.body));
  t.equal(decodeJwt(ok.body.access_token as string).client_id, clientId);
  const replay = await token({
    grant_type: 'refresh_token',
    refresh_token: 'x',
    client_assertion_type: type,
    client_assertion: signed,
  });
  t.match(replay, { status: 401, body: { error_description: /already used/ } }, 'an assertion is used once');
});

t.test('without an allowed CIDR, loopback, private and link-local addresses are never fetched', async (t) => {
  const path = '/apps/strict.json';
  serveDocument(path);
  const port = new URL(host.url).port;
  for (const [clientId, pattern] of [
    [`${host.url}${path}`, /localhost resolves to 127\.0\.0\.1 is a loopback address, not public/],
    [`https://127.0.0.1:${port}${path}`, /127\.0\.0\.1 is a loopback address/],
    [`https://[::1]:${port}${path}`, /::1 is a loopback address/],
    ['https://10.0.0.1/client.json', /10\.0\.0\.1 is a private address/],
    ['https://169.254.169.254/latest/client.json', /169\.254\.169\.254 is a linkLocal address/],
  ] as const) {
    await refusal(t, authorizeUrl(clientId, {}, strict.url), pattern, strictCookie);
  }
  t.equal(host.hits(path), 0, 'no request reached the document host');
});
