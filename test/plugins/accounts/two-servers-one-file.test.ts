/**
 * Two servers sharing one SQLite file with the database memory store, as two processes of one
 * deployment: a session read (and kept) by one server ends there at once when the other ends
 * it. The first server keeps session reads in process while the file is unchanged
 * (storage/memory/database.ts `get`); a logout, an admin revoke or a deactivation elsewhere is a
 * commit, and the next request must not be answered from what was kept.
 */
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, TEST_ADMIN_SECRET, type TestServer } from '../../helpers/server.js';

const PASSWORD = 'Two-servers-1';
const dir = await mkdtemp(join(tmpdir(), 'latchkey-two-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const flags = { 'database-url': join(dir, 'shared.db'), 'memory-store': 'database' };
const a = await startTestServer({ flags });
// One deployment: one --url (the tokens' issuer) for both.
const b = await startTestServer({ flags: { ...flags, url: a.url } });
t.teardown(async () => {
  await a.close();
  await b.close();
});

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

async function profileStatus(server: TestServer, token: string): Promise<number> {
  const r = await fetch(`${server.url}/v1/profile`, { headers: { authorization: `Bearer ${token}` } });
  await r.arrayBuffer();
  return r.status;
}

async function signedIn(email: string): Promise<string> {
  await post(a, '/v1/signup', { email, password: PASSWORD, confirm_password: PASSWORD });
  const login = await post(a, '/v1/login', { email, password: PASSWORD });
  t.equal(login.status, 200, `login ${email}`);
  return String(login.json.access_token);
}

t.test('a logout on the other server ends the session here at the next request', async (t) => {
  const token = await signedIn('logout@example.com');
  for (let i = 0; i < 3; i++) t.equal(await profileStatus(a, token), 200, `profile on A, ${i + 1}`);
  t.equal(await profileStatus(b, token), 200, 'profile on B');
  t.equal((await post(b, '/v1/logout', {}, { authorization: `Bearer ${token}` })).status, 200, 'logout on B');
  t.equal(await profileStatus(a, token), 401, 'refused on A at once');
  const vjt = await post(a, '/v1/validate_jwt_token', { token_type: 'access_token', token });
  t.equal(vjt.json.is_valid, false, 'validate_jwt_token on A says invalid');
});

t.test('an admin revoke on the other server ends the session here at the next request', async (t) => {
  const token = await signedIn('revoke@example.com');
  t.equal(await profileStatus(a, token), 200);
  const profile = (await (
    await fetch(`${a.url}/v1/profile`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { id: string };
  const revoked = await post(
    b,
    '/v1/admin/revoke_access',
    { user_id: profile.id },
    { 'x-service-admin-secret': TEST_ADMIN_SECRET },
  );
  t.equal(revoked.status, 200, `revoke on B: ${JSON.stringify(revoked.json)}`);
  t.equal(await profileStatus(a, token), 401, 'refused on A at once');
});

t.test('a password change or an admin revoke on the other server is seen by the next login here', async (t) => {
  // Server A keeps the users it read by email while the file is unchanged (users/service.ts
  // findByEmail): logins on A must still see what B committed.
  const NEW_PASSWORD = 'Two-servers-2';
  const token = await signedIn('change@example.com');
  t.equal(
    (await post(a, '/v1/login', { email: 'change@example.com', password: PASSWORD })).status,
    200,
    'a second login on A (kept)',
  );
  const changed = await post(
    b,
    '/v1/update_profile',
    { old_password: PASSWORD, new_password: NEW_PASSWORD, confirm_new_password: NEW_PASSWORD },
    { authorization: `Bearer ${token}` },
  );
  t.equal(changed.status, 200, `password changed on B: ${JSON.stringify(changed.json)}`);
  t.equal(
    (await post(a, '/v1/login', { email: 'change@example.com', password: PASSWORD })).status,
    401,
    'the old password is refused on A',
  );
  const fresh = await post(a, '/v1/login', { email: 'change@example.com', password: NEW_PASSWORD });
  t.equal(fresh.status, 200, 'the new one works on A');
  const id = (
    (await (
      await fetch(`${a.url}/v1/profile`, { headers: { authorization: `Bearer ${String(fresh.json.access_token)}` } })
    ).json()) as { id: string }
  ).id;
  t.equal(
    (await post(b, '/v1/admin/revoke_access', { user_id: id }, { 'x-service-admin-secret': TEST_ADMIN_SECRET })).status,
    200,
    'revoked on B',
  );
  const refused = await post(a, '/v1/login', { email: 'change@example.com', password: NEW_PASSWORD });
  t.equal(refused.status, 403, `a login on A is refused: ${JSON.stringify(refused.json)}`);
});
