/**
 * Logout clears the browser's session cookies; the session those cookies name must end with them
 * too: a logout authenticated by a bearer token of one session, sent by a browser
 * whose cookies name another session of the same user, ended the token's session and cleared the
 * cookies, but left the cookies' session alive for the rest of its 24 hours, so a copy of the
 * cookie taken before the logout still worked after it. Other sessions of the user stay.
 */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());
const PASSWORD = 'Logout-pass-1';
const json = { 'content-type': 'application/json', origin: server.url };

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    cookies: res.headers.getSetCookie(),
  };
}

const cookieOf = (setCookies: string[]) => setCookies.find((c) => c.startsWith('cookie_session='))!.split(';')[0];
/** A new user signed in `times` times (each a session of its own); the answers in order. */
async function signedIn(email: string, times: number) {
  await post('signup', { email, password: PASSWORD, confirm_password: PASSWORD });
  const logins = [];
  for (let i = 0; i < times; i++) logins.push(await post('login', { email, password: PASSWORD }));
  return logins;
}
const profileStatus = async (headers: Record<string, string>) =>
  (await fetch(`${server.url}/v1/profile`, { headers })).status;

t.test('a logout by bearer token also ends the session of the cookies it clears, and no other', async (t) => {
  const [inBrowser, byToken, elsewhere] = await signedIn('two-sessions@example.com', 3);
  const cookie = cookieOf(inBrowser.cookies);
  t.equal(await profileStatus({ cookie }), 200, 'the browser cookie works before the logout');

  const out = await post('logout', {}, { authorization: `Bearer ${byToken.body.access_token as string}`, cookie });
  t.equal(out.status, 200);
  t.ok(
    out.cookies.some((c) => c.startsWith('cookie_session=;')),
    'the cookies are cleared',
  );

  t.equal(
    await profileStatus({ authorization: `Bearer ${byToken.body.access_token as string}` }),
    401,
    "the token's session ended",
  );
  t.equal(await profileStatus({ cookie }), 401, 'a copy of the cleared cookie no longer works');
  t.equal(
    await profileStatus({ authorization: `Bearer ${inBrowser.body.access_token as string}` }),
    401,
    "and the cookie session's tokens ended with it",
  );
  const valid = await post('validate_session', { cookie: cookie.slice('cookie_session='.length) });
  t.equal(valid.body.is_valid, false, 'validate_session agrees');
  t.equal(
    await profileStatus({ authorization: `Bearer ${elsewhere.body.access_token as string}` }),
    200,
    'a session on another device stays',
  );
});

t.test('a plain cookie logout ends that session only', async (t) => {
  const [inBrowser, other] = await signedIn('one-cookie@example.com', 2);
  const cookie = cookieOf(inBrowser.cookies);
  t.equal((await post('logout', {}, { cookie })).status, 200);
  t.equal(await profileStatus({ cookie }), 401, 'the cookie session ended');
  t.equal(
    await profileStatus({ authorization: `Bearer ${other.body.access_token as string}` }),
    200,
    'the other session stays',
  );
});

t.test('host and domain cookies of two different sign-ins: a logout ends both sessions', async (t) => {
  const [hostLogin, domainLogin] = await signedIn('two-cookies@example.com', 2);
  const host = cookieOf(hostLogin.cookies);
  const domain = `cookie_session_domain=${cookieOf(domainLogin.cookies).slice('cookie_session='.length)}`;
  t.equal((await post('logout', {}, { cookie: `${host}; ${domain}` })).status, 200);
  t.equal(await profileStatus({ cookie: host }), 401, 'the host cookie session ended');
  t.equal(await profileStatus({ cookie: domain }), 401, 'the domain cookie session ended');
});
