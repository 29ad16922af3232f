/**
 * A model that declares no type `agent`: delegated (RFC 8693 token-exchange) checks fail closed,
 * checks and lists alike, unless the server runs with --fga-allow-unconstrained-agents, where the
 * delegated caller is answered as the user alone. The user's own token is answered as usual.
 */
import t, { type Test } from 'tap';
import { delegatedToken } from '../../helpers/delegation.js';
import { postOk } from '../../helpers/post-json.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

const MODEL = 'model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]\n';

async function scene(t: Test, flags: Record<string, boolean>) {
  const server = await startTestServer({ flags });
  t.teardown(() => server.close());
  const base = server.url;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postOk(base, path, body, headers);
  const admin = (path: string, body: unknown) => post(path, body, { 'x-service-admin-secret': TEST_ADMIN_SECRET });
  await admin('/v1/admin/fga/model', { dsl: MODEL });
  const signup = await post('/v1/signup', {
    email: 'owner@example.com',
    password: 'Agentless-1',
    confirm_password: 'Agentless-1',
  });
  const user = { id: (signup.user as { id: string }).id, token: signup.access_token as string };
  await admin('/v1/admin/fga/tuples', { tuples: [{ user: `user:${user.id}`, relation: 'viewer', object: 'doc:1' }] });
  const created = await admin('/v1/admin/create_client', { name: 'Bot', allowed_scopes: ['openid'] });
  const agent = { id: (created.client as { client_id: string }).client_id, secret: created.client_secret as string };
  const delegated = await delegatedToken(base, agent, user.token);
  const as = (jwt: string) => ({
    check: async () =>
      (
        (await post(
          '/v1/check_permissions',
          { checks: [{ relation: 'viewer', object: 'doc:1' }] },
          { authorization: `Bearer ${jwt}` },
        )) as { results: { allowed: boolean }[] }
      ).results[0]!.allowed,
    list: async () =>
      (
        (await post(
          '/v1/list_permissions',
          { relation: 'viewer', object_type: 'doc' },
          { authorization: `Bearer ${jwt}` },
        )) as {
          objects: string[];
        }
      ).objects,
  });
  return { user: as(user.token), delegated: as(delegated) };
}

t.test('without type agent, delegated checks are denied by default', async (t) => {
  const { user, delegated } = await scene(t, {});
  t.equal(await user.check(), true, "the user's own token");
  t.same(await user.list(), ['doc:1']);
  t.equal(await delegated.check(), false, 'the delegated token fails closed');
  t.same(await delegated.list(), [], 'and lists nothing');
});

t.test('--fga-allow-unconstrained-agents answers the delegated caller as the user', async (t) => {
  const { user, delegated } = await scene(t, { 'fga-allow-unconstrained-agents': true });
  t.equal(await user.check(), true);
  t.equal(await delegated.check(), true, 'the user alone decides');
  t.same(await delegated.list(), ['doc:1']);
});
