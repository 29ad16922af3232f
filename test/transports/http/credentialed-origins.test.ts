/**
 * Which browser origins may use the caller's cookies (transports/http/credentialed-origins.ts).
 * With the default `--allowed-origins *` and `SameSite=None` session cookies, any website
 * could read a signed-in user's tokens with `fetch(..., {credentials: 'include'})`, or post a
 * form that changed their profile. Another site's requests are served as if
 * they came without cookies, and set none.
 */
import t from 'tap';
import { credentialedOrigins } from '../../../transports/http/credentialed-origins.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

t.test('remembered verdicts stay right when a client sends a new Origin on every request', async (t) => {
  const any = credentialedOrigins('https://auth.example.com', ['*']);
  let wrong = 0;
  // More distinct origins than the memory keeps, each asked twice (the second answer from memory).
  for (let i = 0; i < 600; i++) {
    for (let ask = 0; ask < 2; ask++) {
      if (any.trusts(`https://s${i}.example.com`) !== true) wrong++;
      if (any.trusts(`https://s${i}.evil.example`) !== false) wrong++;
    }
  }
  t.equal(wrong, 0, 'every verdict, first asked or remembered');
  t.notOk(any.trusts('null'), 'an opaque origin is never remembered as trusted');
  t.ok(any.trusts('null', 'same-origin'), 'and is decided by Sec-Fetch-Site each time');
  t.notOk(any.trusts('null'));
});

t.test('the policy: listed origins, the own origin, and with * the own site over the own scheme', async (t) => {
  const any = credentialedOrigins('https://auth.example.com', ['*']);
  t.ok(any.trusts(undefined), 'no Origin: a navigation or a server-side client');
  t.ok(any.trusts('https://auth.example.com'), 'its own origin');
  t.ok(any.trusts('https://app.example.com'), 'a sibling under the parent domain');
  t.ok(any.trusts('https://example.com'), 'the parent domain itself');
  t.ok(any.trusts('https://app.example.com:8443'), 'another port of the same site');
  t.notOk(any.trusts('http://app.example.com'), 'the same site over plain HTTP (schemeful same-site)');
  t.notOk(any.trusts('https://evil.example'), 'another site');
  t.notOk(any.trusts('https://example.com.evil.net'), 'a look-alike');
  t.notOk(any.trusts('null'), 'an opaque origin (sandboxed frame, cross-origin redirect)');
  t.notOk(any.trusts('null', 'cross-site'), 'an opaque origin the browser calls cross-site');
  t.ok(
    any.trusts('null', 'same-origin'),
    'a same-origin post from a no-referrer page, as the browser says (Sec-Fetch-Site)',
  );
  t.notOk(any.trusts('https://app.example.com/'), 'not a serialized origin');
  t.notOk(any.trusts('http://localhost:3000'), 'loopback only when the service is on loopback');

  const suffix = credentialedOrigins('https://example.co.uk', ['*']);
  t.ok(suffix.trusts('https://example.co.uk'));
  t.notOk(suffix.trusts('https://evil.co.uk'), "a public suffix is nobody's site");

  const dev = credentialedOrigins('http://localhost:8080', ['*']);
  t.ok(dev.trusts('http://localhost:3000'), 'development: loopback to loopback');
  t.ok(dev.trusts('http://127.0.0.1:5173'));
  t.notOk(dev.trusts('https://evil.example'));

  const listed = credentialedOrigins('https://auth.example.com', [
    'https://app.other.example/',
    'https://admin.other.example',
  ]);
  t.ok(listed.trusts('https://app.other.example'), 'listed (trailing slash ignored)');
  t.ok(listed.trusts('https://admin.other.example'));
  t.ok(listed.trusts('https://auth.example.com'), 'its own origin is always trusted');
  t.notOk(listed.trusts('https://app.example.com'), 'with a list, the own site is not implied');
  t.notOk(listed.trusts('https://evil.example'));
});

t.test('with --allowed-origins * another site gets no cookie honoured and none set', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const EVIL = { origin: 'https://evil.example' };
  const SELF = { origin: server.url };
  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  const password = 'Secret-123';
  const signup = await post('/v1/signup', { email: 'cross@example.com', password, confirm_password: password }, SELF);
  t.equal(signup.status, 200);
  const cookie = signup.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  t.match(cookie, /cookie_session=/, 'the own origin gets the session cookies');

  const stolen = await post('/v1/session', {}, { ...EVIL, cookie });
  t.equal(stolen.status, 401, "another site cannot read the session through the user's cookies");
  t.match(await stolen.json(), { code: 'unauthenticated' });
  t.equal(stolen.headers.get('set-cookie'), null, 'and nothing is rotated or cleared');
  t.equal(stolen.headers.get('access-control-allow-credentials'), null);

  // A classic form post (no preflight) from another site, with the user's cookies attached.
  const forged = await fetch(`${server.url}/v1/update_profile`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...EVIL, cookie },
    body: 'given_name=Mallory',
  });
  t.equal(forged.status, 415, 'a cross-site form cannot change the profile: REST takes JSON bodies only');
  // The other body a page of another site can send without a preflight: JSON text as text/plain.
  const plain = await fetch(`${server.url}/v1/update_profile`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', ...EVIL, cookie },
    body: JSON.stringify({ given_name: 'Mallory' }),
  });
  t.equal(plain.status, 400, 'nor can JSON sent as text/plain');

  const own = await post('/v1/session', {}, { ...SELF, cookie });
  t.equal(own.status, 200, 'the same cookies from the own origin still work');
  const { user } = (await own.json()) as { user: { given_name?: string | null } };
  t.not(user.given_name, 'Mallory', 'the forged update wrote nothing');
  const fresh = own.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

  // A form post from the service's own page under Referrer-Policy: no-referrer: Origin is `null`,
  // and only the browser's Sec-Fetch-Site tells it from a sandboxed frame of another site.
  const sandboxed = await post('/v1/session', {}, { origin: 'null', 'sec-fetch-site': 'cross-site', cookie: fresh });
  t.equal(sandboxed.status, 401, 'Origin null from another site: no cookies');
  const ownPage = await post('/v1/session', {}, { origin: 'null', 'sec-fetch-site': 'same-origin', cookie: fresh });
  t.equal(ownPage.status, 200, 'Origin null that the browser calls same-origin: the cookies work');
  const rotated = ownPage.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

  const devOrigin = await post('/v1/session', {}, { origin: 'http://localhost:3000', cookie: rotated });
  t.equal(devOrigin.status, 200, 'a loopback front end of a loopback service is the own site');
  t.equal(devOrigin.headers.get('access-control-allow-credentials'), 'true');

  const crossLogin = await post('/v1/login', { email: 'cross@example.com', password }, EVIL);
  t.equal(crossLogin.status, 200, 'another site may still log in with a password (a public API)');
  t.ok(((await crossLogin.json()) as { access_token?: string }).access_token, 'and gets its tokens in the body');
  t.strictSame(crossLogin.headers.getSetCookie(), [], 'but no cookies: no login forgery into the browser');
});

t.test('a listed origin may use cookies; an unlisted one is refused before any cookie matters', async (t) => {
  const server = await startTestServer({ flags: { 'allowed-origins': 'https://app.other.example' } });
  t.teardown(() => server.close());
  const password = 'Secret-123';
  const signup = await fetch(`${server.url}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'https://app.other.example' },
    body: JSON.stringify({ email: 'listed@example.com', password, confirm_password: password }),
  });
  t.equal(signup.status, 200);
  const cookie = signup.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  t.match(cookie, /cookie_session=/, 'a listed origin gets the cookies');
  const session = await fetch(`${server.url}/v1/session`, {
    method: 'POST',
    headers: { origin: 'https://app.other.example', cookie },
  });
  t.equal(session.status, 200);
  t.equal(session.headers.get('access-control-allow-credentials'), 'true');
  const rotated = session.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const unlisted = await fetch(`${server.url}/v1/session`, {
    method: 'POST',
    headers: { origin: 'https://evil.example', cookie },
  });
  t.equal(unlisted.status, 403, 'the CSRF check refuses an unlisted origin');
  const opaque = await fetch(`${server.url}/v1/session`, {
    method: 'POST',
    headers: { origin: 'null', 'sec-fetch-site': 'cross-site', cookie },
  });
  t.equal(opaque.status, 403, 'and an opaque origin from another site');
  const ownPage = await fetch(`${server.url}/v1/session`, {
    method: 'POST',
    headers: { origin: 'null', 'sec-fetch-site': 'same-origin', cookie: rotated },
  });
  t.equal(
    ownPage.status,
    200,
    "but not the service's own no-referrer page (it was refused: the hosted login page failed with a list)",
  );
  // Without an Origin (or with an opaque one the browser does not call same-origin) the Referer decides.
  const login = (headers: Record<string, string>) =>
    fetch(`${server.url}/v1/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ admin_secret: TEST_ADMIN_SECRET }),
    });
  t.equal((await login({ referer: 'https://app.other.example/settings' })).status, 200, 'a Referer of a listed origin');
  t.equal((await login({ referer: 'https://evil.example/x' })).status, 403, 'a Referer of another one');
  t.equal(
    (await login({ origin: 'null', referer: 'https://app.other.example/page' })).status,
    200,
    'Origin null with a listed Referer',
  );
  t.equal((await login({ referer: 'not a url' })).status, 403, 'a Referer that is no URL');
});
