/**
 * The message of a refused input names the field and what it may be (core/operations.ts
 * validateInput), over the started server.
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify(body),
  });
  return [res.status, ((await res.json()) as { message?: string }).message];
};

t.test('a value outside a list of literals is answered with the list', async (t) => {
  t.same(await post('validate_jwt_token', { token_type: 'bogus', token: 'x' }), [
    400,
    'invalid token_type: expected one of access_token, id_token, refresh_token',
  ]);
  t.same(
    await post('validate_jwt_token', { token_type: 5, token: 'x' }),
    [400, 'invalid token_type: expected one of access_token, id_token, refresh_token'],
    'a number too',
  );
  t.same(
    await post('validate_jwt_token', { token_type: 'access_token', token: 'x' }),
    [200, undefined],
    'a listed value passes',
  );
});
