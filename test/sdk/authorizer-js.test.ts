/**
 * The public JavaScript SDK `@authorizerdev/authorizer-js` v3, unchanged, against a started
 * server. In Node the SDK sends no Origin header and keeps no cookies, so (like any server-side
 * client) it is given an Origin through `extraHeaders` and the bearer token
 * through the per-call headers the SDK accepts.
 */
import t from 'tap';
import { Authorizer } from '@authorizerdev/authorizer-js';
import { startTestServer, TEST_CLIENT_ID } from '../helpers/server.js';

const server = await startTestServer({ flags: { 'enable-mobile-basic-authentication': true } });
t.teardown(() => server.close());

const sdk = new Authorizer({
  authorizerURL: server.url,
  redirectURL: `${server.url}/app`,
  clientID: TEST_CLIENT_ID,
  extraHeaders: { Origin: server.url },
});
const PASSWORD = 'Sdk-pass-1';

t.test('meta', async (t) => {
  const res = await sdk.getMetaData();
  t.same(res.errors, []);
  t.equal(res.data?.client_id, TEST_CLIENT_ID);
  t.equal(res.data?.is_basic_authentication_enabled, true);
  t.equal(res.data?.is_sign_up_enabled, true);
  t.equal(res.data?.is_mobile_basic_authentication_enabled, true);
  t.equal(res.data?.is_strong_password_enabled, false);
});

t.test('signup, login, profile, session, update, validate, logout, deactivate', async (t) => {
  const signed = await sdk.signup({
    email: 'sdk@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
    given_name: 'Sdk',
  });
  t.same(signed.errors, []);
  t.equal(signed.data?.user?.email, 'sdk@example.com');
  t.ok(signed.data?.access_token);

  const dup = await sdk.signup({ email: 'sdk@example.com', password: PASSWORD, confirm_password: PASSWORD });
  t.match(dup.errors, [{ message: 'user with given email already exists' }], 'duplicate email error reaches the SDK');

  const login = await sdk.login({
    email: 'sdk@example.com',
    password: PASSWORD,
    scope: ['openid', 'profile', 'email', 'offline_access'],
  });
  t.same(login.errors, []);
  const token = login.data!.access_token!;
  t.ok(login.data?.refresh_token, 'refresh token with offline_access');
  const bearer = { Authorization: `Bearer ${token}` };

  const profile = await sdk.getProfile(bearer);
  t.same(profile.errors, []);
  t.equal(profile.data?.given_name, 'Sdk');

  const jwt = await sdk.validateJWTToken({ token_type: 'access_token', token });
  t.same(jwt.errors, []);
  t.equal(jwt.data?.is_valid, true);
  t.equal(jwt.data?.claims.sub, login.data?.user?.id);

  const updated = await sdk.updateProfile({ nickname: 'sdkky' }, bearer);
  t.same(updated.errors, []);
  t.equal(updated.data?.message, 'Profile details updated successfully');

  const session = await sdk.getSession(bearer);
  t.same(session.errors, []);
  const fresh = session.data!.access_token!;
  t.not(fresh, token, 'session rotates');
  t.equal(session.data?.user?.nickname, 'sdkky');
  t.match(
    (await sdk.getProfile(bearer)).errors,
    [{ extensions: { code: 'UNAUTHENTICATED' } }],
    'old token dead after rotation',
  );

  // validate_session takes the session cookie value: read it from a login's Set-Cookie.
  const raw = await fetch(`${server.url}/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify({ email: 'sdk@example.com', password: PASSWORD }),
  });
  const cookies = raw.headers.getSetCookie();
  t.ok(
    cookies.some((c) => /^cookie_session=.+HttpOnly/i.test(c)),
    'cookie_session is HTTP-only',
  );
  t.ok(
    cookies.some((c) => c.startsWith('cookie_session_domain=')),
    'cookie_session_domain set',
  );
  const value = decodeURIComponent(
    /^cookie_session=([^;]+)/.exec(cookies.find((c) => c.startsWith('cookie_session='))!)![1],
  );
  const vs = await sdk.validateSession({ cookie: value });
  t.same(vs.errors, []);
  t.equal(vs.data?.is_valid, true);
  t.equal(vs.data?.user?.email, 'sdk@example.com');

  const freshBearer = { Authorization: `Bearer ${fresh}` };
  const out = await sdk.logout(freshBearer);
  t.same(out.errors, []);
  t.equal(
    (await sdk.validateJWTToken({ token_type: 'access_token', token: fresh })).data?.is_valid,
    false,
    'logout is immediate',
  );

  const again = await sdk.login({ email: 'sdk@example.com', password: PASSWORD });
  const deact = await sdk.deactivateAccount({ Authorization: `Bearer ${again.data!.access_token}` });
  t.same(deact.errors, []);
  const blocked = await sdk.login({ email: 'sdk@example.com', password: PASSWORD });
  t.match(blocked.errors, [{ message: 'user access has been revoked' }]);
});

t.test('a password change through the SDK keeps the app that made it signed in and signs out the others', async (t) => {
  await sdk.signup({ email: 'sdk-pw@example.com', password: PASSWORD, confirm_password: PASSWORD });
  const app = await sdk.login({ email: 'sdk-pw@example.com', password: PASSWORD });
  const other = await sdk.login({ email: 'sdk-pw@example.com', password: PASSWORD });
  const appBearer = { Authorization: `Bearer ${app.data!.access_token}` };
  const changed = await sdk.updateProfile(
    { old_password: PASSWORD, new_password: 'Changed-pass-9', confirm_new_password: 'Changed-pass-9' },
    appBearer,
  );
  t.same(changed.errors, []);
  const mine = await sdk.getProfile(appBearer);
  t.same(mine.errors, [], "the app's token still works");
  t.equal(mine.data?.email, 'sdk-pw@example.com');
  t.match(
    (await sdk.getProfile({ Authorization: `Bearer ${other.data!.access_token}` })).errors,
    [{ extensions: { code: 'UNAUTHENTICATED' } }],
    'the other sign-in ended',
  );
  t.match(
    (await sdk.login({ email: 'sdk-pw@example.com', password: PASSWORD })).errors,
    [{ message: 'bad user credentials' }],
    'the old password is refused',
  );
  t.same(
    (await sdk.login({ email: 'sdk-pw@example.com', password: 'Changed-pass-9' })).errors,
    [],
    'the new one signs in',
  );
});

t.test('phone signup and login', async (t) => {
  const s = await sdk.signup({ phone_number: '+15551234567', password: PASSWORD, confirm_password: PASSWORD });
  t.same(s.errors, []);
  const l = await sdk.login({ phone_number: '+15551234567', password: PASSWORD });
  t.same(l.errors, []);
  t.equal(l.data?.user?.phone_number, '+15551234567');
});
