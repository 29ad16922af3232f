/**
 * The password flags over REST: `--enable-strong-password` requires an upper-case letter, a
 * lower-case letter, a digit and a symbol (length 6 to 36 either way),
 * `--enable-basic-authentication=false` refuses email and password signup and login, and
 * `--enable-signup=false` refuses new accounts while existing ones still sign in; Meta says
 * which is in force.
 */
import t from 'tap';
import { postJson } from '../../helpers/post-json.js';
import { startTestServer } from '../../helpers/server.js';

const signup = (base: string, email: string, password: string) =>
  postJson(base, '/v1/signup', { email, password, confirm_password: password });
const meta = async (base: string) => (await (await fetch(`${base}/v1/meta`)).json()) as Record<string, unknown>;

t.test('--enable-strong-password', async (t) => {
  const server = await startTestServer({ flags: { 'enable-strong-password': true } });
  t.teardown(() => server.close());
  t.equal((await meta(server.url)).is_strong_password_enabled, true, 'Meta says so');
  for (const [password, missing] of [
    ['ALLUPPER1!', 'lower-case letter'],
    ['alllower1!', 'upper-case letter'],
    ['NoDigits!!', 'digit'],
    ['NoSymbol12', 'special character'],
  ] as const) {
    const res = await signup(server.url, 'weak@example.com', password);
    t.equal(res.status, 400, password);
    t.same(await res.json(), {
      code: 'invalid_argument',
      message: `password must contain at least one ${missing}`,
    });
  }
  const short = await signup(server.url, 'weak@example.com', 'Ab1!');
  t.equal(short.status, 400);
  t.match(await short.json(), { message: 'password must be between 6 and 36 characters' });
  t.equal((await signup(server.url, 'strong@example.com', 'Strong-pass-1')).status, 200, 'a strong password');
});

t.test('without it, any password of 6 to 36 characters', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  t.equal((await meta(server.url)).is_strong_password_enabled, false);
  t.equal((await signup(server.url, 'plain@example.com', 'plainpass')).status, 200);
  const long = await signup(server.url, 'long@example.com', 'x'.repeat(37));
  t.equal(long.status, 400);
  t.match(await long.json(), { message: 'password must be between 6 and 36 characters' });
});

t.test('--enable-basic-authentication=false', async (t) => {
  const server = await startTestServer({ flags: { 'enable-basic-authentication': false } });
  t.teardown(() => server.close());
  t.equal((await meta(server.url)).is_basic_authentication_enabled, false, 'Meta says so');
  const refused = await signup(server.url, 'basic@example.com', 'Basic-pass-1');
  t.equal(refused.status, 403, 'signup with email and password is refused');
  t.match(await refused.json(), { code: 'permission_denied' });
  const login = await postJson(server.url, '/v1/login', { email: 'basic@example.com', password: 'Basic-pass-1' });
  t.equal(login.status, 403, 'and so is login');
  t.match(await login.json(), { code: 'permission_denied' });
});

t.test('--enable-signup=false', async (t) => {
  const server = await startTestServer({ flags: { 'enable-signup': false } });
  t.teardown(() => server.close());
  t.equal((await meta(server.url)).is_sign_up_enabled, false, 'Meta says so');
  const refused = await signup(server.url, 'new@example.com', 'Signup-pass-1');
  t.equal(refused.status, 403);
  t.same(await refused.json(), { code: 'permission_denied', message: 'signup is disabled for this instance' });
  await server.kernel.service('users').create({
    email: 'existing@example.com',
    password: 'Existing-pass-1',
    signup_method: 'basic_auth',
    roles: ['user'],
  });
  const login = await postJson(server.url, '/v1/login', { email: 'existing@example.com', password: 'Existing-pass-1' });
  t.equal(login.status, 200, 'an existing account still signs in');
});
