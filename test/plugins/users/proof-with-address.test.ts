/**
 * With `--enable-email-verification`, an address and the request to prove it are stored in one
 * commit (plugins/users/email-verification.ts). Before, the address was saved first and the
 * request after: when the request's insert failed, a signup left an account that could never be
 * proven (and its email "already exists" on a retry), and an email change left the new, unproven
 * address with no request and the sessions alive. The request's table is taken away to make the
 * insert fail, as a database error would.
 */
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';
import { VERIFICATION_TABLE } from '../../../plugins/users/verification.js';

// Mail needs an SMTP host (plugins/email); nothing listens on port 9 here, so it stays queued.
const server = await startTestServer({
  flags: { 'enable-email-verification': true, 'smtp-host': '127.0.0.1', 'smtp-port': 9 },
});
t.teardown(() => server.close());
const PASSWORD = 'Proof-pass-1';
const admin = { 'x-service-admin-secret': TEST_ADMIN_SECRET };
const mailed: string[] = [];
// The hook runs inside the write's unit of work: a mail counts once that unit has committed.
server.kernel.hooks.on('email.verification_requested', (p) => {
  p.unit.afterCommit(() => mailed.push(p.email));
});
const sql = (statement: string) => server.kernel.storage.orm.em.getConnection().execute(statement, [], 'run');
const requestsFail = () => sql(`alter table ${VERIFICATION_TABLE} rename to lk_requests_away`);
const requestsBack = () => sql(`alter table lk_requests_away rename to ${VERIFICATION_TABLE}`);

async function rest(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

t.test('a signup whose request cannot be stored leaves no account behind, and a retry works', async (t) => {
  await requestsFail();
  const failed = await rest('signup', { email: 'atomic@example.com', password: PASSWORD, confirm_password: PASSWORD });
  await requestsBack();
  t.equal(failed.status, 500, 'a database failure');
  t.equal((await rest('admin/user', { email: 'atomic@example.com' }, admin)).status, 404, 'no account was stored');
  t.same(mailed, [], 'no mail');
  const retried = await rest('signup', { email: 'atomic@example.com', password: PASSWORD, confirm_password: PASSWORD });
  t.equal(retried.status, 200, 'the same signup succeeds once the database does');
  t.same(mailed, ['atomic@example.com'], 'and its mail goes out');
});

t.test('an email change whose request cannot be stored keeps the old address and the session', async (t) => {
  const signup = await rest('signup', { email: 'stays@example.com', password: PASSWORD, confirm_password: PASSWORD });
  const id = (signup.body.user as { id: string }).id;
  t.equal((await rest('admin/update_user', { id, email_verified: true }, admin)).status, 200);
  const login = await rest('login', { email: 'stays@example.com', password: PASSWORD });
  const bearer = { authorization: `Bearer ${login.body.access_token as string}` };
  const before = mailed.length;

  await requestsFail();
  const byUser = await rest('update_profile', { email: 'elsewhere@example.com' }, bearer);
  const byAdmin = await rest('admin/update_user', { id, email: 'elsewhere-2@example.com' }, admin);
  await requestsBack();
  t.same([byUser.status, byAdmin.status], [500, 500], 'both calls fail');
  const user = (await rest('admin/user', { id }, admin)).body;
  t.same(
    [user.email, user.email_verified],
    ['stays@example.com', true],
    'the proven address is still the one on record',
  );
  t.equal(mailed.length, before, 'no mail');
  t.equal((await fetch(`${server.url}/v1/profile`, { headers: bearer })).status, 200, 'the session lives');
  t.equal(
    (await rest('login', { email: 'stays@example.com', password: PASSWORD })).status,
    200,
    'the address still signs in',
  );
});
