/**
 * REST answers about their caller are never stored by a cache on the way: responses carrying
 * tokens (RFC 6749 §5.1) or a profile, and refusals, say `Cache-Control: no-store` (and GraphQL's); the constant
 * meta answer does not.
 */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());
const headers = { 'content-type': 'application/json', origin: server.url };
const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
  fetch(`${server.url}/v1/${path}`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });

t.test('token-bearing and personal answers say no-store', async (t) => {
  const password = 'Cache-pass-1';
  const signup = await post('signup', { email: 'cache@example.com', password, confirm_password: password });
  t.equal(signup.status, 200);
  t.equal(signup.headers.get('cache-control'), 'no-store', 'signup');
  const login = await post('login', { email: 'cache@example.com', password });
  t.equal(login.headers.get('cache-control'), 'no-store', 'login');
  const token = ((await login.json()) as { access_token: string }).access_token;
  const profile = await fetch(`${server.url}/v1/profile`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(profile.status, 200);
  t.equal(profile.headers.get('cache-control'), 'no-store', 'profile');
  const validate = await post('validate_jwt_token', { token_type: 'access_token', token });
  t.equal(validate.headers.get('cache-control'), 'no-store', 'validate_jwt_token');
});

t.test('refusals say no-store too', async (t) => {
  const res = await post('login', { email: 'nobody@example.com', password: 'Wrong-pass-1' });
  t.equal(res.status, 401);
  t.equal(res.headers.get('cache-control'), 'no-store');
  const anonymous = await fetch(`${server.url}/v1/profile`);
  t.equal(anonymous.status, 401);
  t.equal(anonymous.headers.get('cache-control'), 'no-store');
});

t.test('the constant meta answer may be cached', async (t) => {
  const res = await fetch(`${server.url}/v1/meta`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('cache-control'), null);
});

t.test('GraphQL answers say no-store', async (t) => {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      query: 'mutation { login(params: { email: "cache@example.com", password: "Cache-pass-1" }) { access_token } }',
    }),
  });
  t.equal(res.status, 200);
  t.type(((await res.json()) as { data?: { login?: { access_token?: string } } }).data?.login?.access_token, 'string');
  t.equal(res.headers.get('cache-control'), 'no-store');
});
