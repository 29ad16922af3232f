/**
 * A token for a service account (`service_account:<client_id>`) is active at introspection only
 * when it is an access token: one of another kind signed for such a subject does not pass.
 */
import t from 'tap';
import { oauthFixture } from './setup.js';

t.test('introspection of service-account tokens by kind', async (t) => {
  const fx = await oauthFixture();
  t.teardown(() => fx.server.close());
  const tokens = fx.server.kernel.service('tokens');
  const introspect = async (token: string) => {
    const res = await fetch(`${fx.server.url}/oauth/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: fx.client.client_id, client_secret: fx.client.client_secret }),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const claims = {
    sub: `service_account:${fx.client.client_id}`,
    aud: fx.client.client_id,
    client_id: fx.client.client_id,
    scope: '',
  };
  t.equal(
    (await introspect((await tokens.sign({ ...claims, token_type: 'access_token' }, 60)).token)).active,
    true,
    'an access token is active',
  );
  for (const kind of ['id_token', 'refresh_token', undefined]) {
    const { token } = await tokens.sign(kind ? { ...claims, token_type: kind } : claims, 60);
    t.same(await introspect(token), { active: false }, `${kind ?? 'no token_type'}: inactive`);
  }
});
