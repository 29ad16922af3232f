/**
 * `update_user` on two servers of one deployment, sharing one SQLite file and the database memory
 * store, where each server keeps a short per-process copy of the users it read. What the call
 * decides must rest on the user as stored, not on that copy:
 * - it ends the user's sessions when it changes their roles, so a session granted a role an admin
 *   has just taken away does not live on (access tokens are
 *   stateful, so ending the session ends its tokens);
 * - it refuses to leave a user with neither email nor phone, and allows a clear that the other
 *   server's change made safe.
 */
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, TEST_ADMIN_SECRET, type TestServer } from '../../helpers/server.js';

const PASSWORD = 'Two-servers-1';
const dir = await mkdtemp(join(tmpdir(), 'latchkey-roles-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const flags = { 'database-url': join(dir, 'shared.db'), 'memory-store': 'database', roles: 'user,editor' };
const a = await startTestServer({ flags });
const b = await startTestServer({ flags: { ...flags, url: a.url } });
t.teardown(async () => {
  await a.close();
  await b.close();
});
const admin = { 'x-service-admin-secret': TEST_ADMIN_SECRET };

async function post(
  server: TestServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: a.url, ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

t.test(
  'a role taken away on one server ends the session granted it on the other, though the first had read the user just before',
  async (t) => {
    const signup = await post(a, '/v1/signup', {
      email: 'roles@example.com',
      password: PASSWORD,
      confirm_password: PASSWORD,
    });
    const id = (signup.json.user as { id: string }).id;
    // A reads the user (an admin's user page): A now holds it with roles [user].
    t.same((await post(a, '/v1/admin/user', { id }, admin)).json.roles, ['user']);
    // B grants editor; the user signs in with it.
    t.same((await post(b, '/v1/admin/update_user', { id, roles: ['user', 'editor'] }, admin)).json.roles, [
      'user',
      'editor',
    ]);
    const login = await post(b, '/v1/login', { email: 'roles@example.com', password: PASSWORD });
    t.same((login.json.user as { roles: string[] }).roles, ['user', 'editor'], 'signed in as editor');
    const token = String(login.json.access_token);
    // A takes editor away again: the roles change, from [user, editor] to [user].
    const taken = await post(a, '/v1/admin/update_user', { id, roles: ['user'] }, admin);
    t.same(taken.json.roles, ['user']);
    const profile = await fetch(`${b.url}/v1/profile`, { headers: { authorization: `Bearer ${token}` } });
    await profile.arrayBuffer();
    t.equal(profile.status, 401, 'the editor session ended with the change');
    const v = await post(a, '/v1/validate_jwt_token', { token_type: 'access_token', token });
    t.equal(v.json.is_valid, false, 'its access token is no longer valid');
  },
);

t.test(
  'clearing the email is judged against the user as stored, not against the copy the server read before another added a phone',
  async (t) => {
    const signup = await post(a, '/v1/signup', {
      email: 'keeps-a-way@example.com',
      password: PASSWORD,
      confirm_password: PASSWORD,
    });
    const id = (signup.json.user as { id: string }).id;
    // A reads the user (email only); B gives it a phone number.
    t.equal((await post(a, '/v1/admin/user', { id }, admin)).json.phone_number ?? null, null);
    t.equal((await post(b, '/v1/admin/update_user', { id, phone_number: '+15550009876' }, admin)).status, 200);
    // A clears the email: the phone number B added keeps a way to sign in.
    const cleared = await post(a, '/v1/admin/update_user', { id, email: '' }, admin);
    t.equal(cleared.status, 200, 'allowed');
    t.same([cleared.json.email ?? null, cleared.json.phone_number], [null, '+15550009876']);
    // Clearing the phone now would leave nothing: refused, on either server.
    const none = await post(b, '/v1/admin/update_user', { id, phone_number: '' }, admin);
    t.same([none.status, none.json.message], [400, 'a user needs an email address or a phone number']);
  },
);
