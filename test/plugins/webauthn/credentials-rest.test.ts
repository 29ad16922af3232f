/**
 * The REST listing of one's own passkeys: `POST /v1/webauthn_credentials` with the caller's token
 * answers the bare array, without credentials 401 `unauthenticated`, and another method 405
 * `method_not_allowed` in the REST error envelope.
 */
import t from 'tap';
import { postJson } from '../../helpers/post-json.js';
import { startTestServer } from '../../helpers/server.js';

t.test('POST /v1/webauthn_credentials lists the caller’s passkeys', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const password = 'Pass-key-1';
  const signup = await postJson(server.url, '/v1/signup', {
    email: 'lister@example.com',
    password,
    confirm_password: password,
  });
  t.equal(signup.status, 200, 'signed up');
  const { access_token: token } = (await signup.json()) as { access_token: string };

  const list = await postJson(server.url, '/v1/webauthn_credentials', {}, token);
  t.equal(list.status, 200);
  t.same(await list.json(), [], 'no passkeys yet: an empty array, not wrapped');

  const anonymous = await postJson(server.url, '/v1/webauthn_credentials', {});
  t.equal(anonymous.status, 401);
  t.match(await anonymous.json(), { code: 'unauthenticated' });

  const get = await fetch(`${server.url}/v1/webauthn_credentials`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(get.status, 405);
  t.match(await get.json(), { code: 'method_not_allowed' });
});
