/**
 * Delegated FGA checks with real agent tokens: the agent client exchanges the user's access token
 * and its own client-credentials token (RFC 8693) for a token carrying `act: {sub: agent:<id>}`,
 * and check_permissions and list_permissions with it answer the intersection of agent and user,
 * through group membership and folder inheritance on the user's side and direct grants on the
 * agent's; a delegated list finds what both share beyond the first 1000 objects of the user and
 * caps the shared part at 1000.
 */
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';
import { MODEL } from './documents-model.js';
import { delegatedToken } from '../../helpers/delegation.js';
import { postOk } from '../../helpers/post-json.js';

const server = await startTestServer();
t.teardown(() => server.close());
const base = server.url;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postOk(base, path, body, headers);
const admin = (path: string, body: unknown) => post(path, body, { 'x-service-admin-secret': TEST_ADMIN_SECRET });
const writeTuples = async (tuples: { user: string; relation: string; object: string }[]) => {
  for (let i = 0; i < tuples.length; i += 1000)
    await admin('/v1/admin/fga/tuples', { tuples: tuples.slice(i, i + 1000) });
};

/** A user with an access token, and an agent client acting for them with a delegated token. */
async function delegation(email: string, agentName: string) {
  const signup = await post('/v1/signup', { email, password: 'Deleg-pass-1', confirm_password: 'Deleg-pass-1' });
  const user = { id: (signup.user as { id: string }).id, token: signup.access_token as string };
  const created = await admin('/v1/admin/create_client', { name: agentName, allowed_scopes: ['openid', 'profile'] });
  const agent = {
    id: (created.client as { client_id: string }).client_id,
    secret: created.client_secret as string,
  };
  const delegated = await delegatedToken(base, agent, user.token);
  return { user, agent, delegated };
}

const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });

t.before(() => admin('/v1/admin/fga/model', { dsl: MODEL }));

t.test('a delegated check and list answer what both the agent and the user hold', async (t) => {
  const { user, agent, delegated } = await delegation('anne@example.com', 'Bot');
  t.match(JSON.parse(Buffer.from(delegated.split('.')[1]!, 'base64url').toString()), {
    sub: user.id,
    act: { sub: `agent:${agent.id}` },
  });
  await writeTuples([
    { user: `user:${user.id}`, relation: 'member', object: 'group:eng' },
    { user: 'group:eng#member', relation: 'viewer', object: 'folder:f' },
    { user: 'folder:f', relation: 'parent', object: 'document:1' },
    { user: 'folder:f', relation: 'parent', object: 'document:2' },
    { user: `user:${user.id}`, relation: 'blocked', object: 'document:2' },
    { user: `agent:${agent.id}`, relation: 'viewer', object: 'document:1' },
    { user: `agent:${agent.id}`, relation: 'viewer', object: 'document:9' },
  ]);
  const checks = ['document:1', 'document:2', 'document:9'].map((object) => ({ relation: 'viewer', object }));
  t.same(
    await post('/v1/check_permissions', { checks }, bearer(user.token)),
    {
      results: [
        { relation: 'viewer', object: 'document:1', allowed: true },
        { relation: 'viewer', object: 'document:2', allowed: true },
        { relation: 'viewer', object: 'document:9', allowed: false },
      ],
    },
    'the user alone: through the group and the folder',
  );
  t.same(
    await post('/v1/check_permissions', { checks }, bearer(delegated)),
    {
      results: [
        { relation: 'viewer', object: 'document:1', allowed: true },
        { relation: 'viewer', object: 'document:2', allowed: false },
        { relation: 'viewer', object: 'document:9', allowed: false },
      ],
    },
    "a delegated agent gets the intersection of its permissions and the user's",
  );
  t.same(
    await post('/v1/list_permissions', { relation: 'viewer', object_type: 'document' }, bearer(delegated)),
    { objects: ['document:1'], permissions: [{ object: 'document:1', relation: 'viewer' }], truncated: false },
    'enumeration for a delegated agent omits what the agent lacks',
  );
});

t.test(
  'a delegated list finds what user and agent share beyond the first 1000 of the user, and is capped after',
  async (t) => {
    const { user, agent, delegated } = await delegation('zoe@example.com', 'Lister');
    const doc = (i: number) => `document:z${String(i).padStart(4, '0')}`;
    // The user views 2500 documents; the agent only 1200-1299 and 3000 (which the user lacks).
    await writeTuples(
      Array.from({ length: 2500 }, (_, i) => ({ user: `user:${user.id}`, relation: 'viewer', object: doc(i) })),
    );
    await writeTuples([
      ...Array.from({ length: 100 }, (_, i) => ({
        user: `agent:${agent.id}`,
        relation: 'viewer',
        object: doc(1200 + i),
      })),
      { user: `agent:${agent.id}`, relation: 'viewer', object: doc(3000) },
    ]);
    const list = async () =>
      (await post('/v1/list_permissions', { relation: 'viewer', object_type: 'document' }, bearer(delegated))) as {
        objects: string[];
        truncated: boolean;
      };
    const listed = await list();
    t.same(
      listed.objects.sort(),
      Array.from({ length: 100 }, (_, i) => doc(1200 + i)),
      'the 100 shared ones, all past the 1000th of the user',
    );
    t.equal(listed.truncated, false);
    // The agent views all 2500 too: 2500 shared, capped at 1000 and said so.
    await writeTuples(
      Array.from({ length: 2500 }, (_, i) => ({
        user: `agent:${agent.id}`,
        relation: 'viewer',
        object: doc(i),
      })).filter((_, i) => i < 1200 || i >= 1300),
    );
    const all = await list();
    t.equal(all.objects.length, 1000);
    t.equal(all.truncated, true);
  },
);
