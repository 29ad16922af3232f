/**
 * The verification mail joins the commit of the account it proves (transactional outbox,
 * core/unit-of-work.ts): a failure after the user, its verification request and the mail's outbox
 * row were written and before the commit stores none of them; a database refusal of the outbox
 * row undoes the signup; every signup that committed has exactly one mail queued, and so does a
 * committed change of address; an invited user and its invitation mail are stored together.
 */
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

// Mail needs an SMTP host; nothing listens on port 9 here, so it stays queued.
const server = await startTestServer({
  flags: {
    'enable-email-verification': true,
    'smtp-host': '127.0.0.1',
    'smtp-port': 9,
    'email-retry-delay-ms': 600_000,
  },
});
t.teardown(() => server.close());
const admin = { 'x-service-admin-secret': TEST_ADMIN_SECRET };
const PASSWORD = 'Outbox-pass-1';
const sql = (statement: string) => server.kernel.storage.orm.em.getConnection().execute(statement, [], 'run');

async function rest(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const signup = (email: string) => rest('signup', { email, password: PASSWORD, confirm_password: PASSWORD });
const userExists = async (email: string) => (await rest('admin/user', { email }, admin)).status === 200;

async function queued(recipient: string, event?: string): Promise<number> {
  const { body } = await rest('admin/email_outbox', { pagination: { limit: 100 } }, admin);
  const entries = body.entries as { recipient: string; event_name: string }[];
  return entries.filter((e) => e.recipient === recipient && (event === undefined || e.event_name === event)).length;
}

// Runs after the email-verification plugin's handler has added the mail's row to the unit of work.
let failNext = false;
server.kernel.hooks.on('email.verification_requested', () => {
  if (!failNext) return;
  failNext = false;
  throw new Error('injected failure between the outbox write and the commit');
});

t.test('a failure after the mail is queued in the unit, before the commit, stores nothing', async (t) => {
  failNext = true;
  const failed = await signup('crash@example.com');
  t.equal(failed.status, 500, 'the signup fails');
  t.notOk(await userExists('crash@example.com'), 'no account was stored');
  t.equal(await queued('crash@example.com'), 0, 'and no mail');

  const retried = await signup('crash@example.com');
  t.equal(retried.status, 200, 'the same signup succeeds afterwards');
  t.ok(await userExists('crash@example.com'));
  t.equal(await queued('crash@example.com', 'basic_auth_signup'), 1, 'with exactly one mail');
});

t.test('a database refusal of the outbox row undoes the signup', async (t) => {
  await sql(
    "create trigger mail_refused before insert on latchkey_mail_outbox begin select raise(abort, 'outbox refused'); end",
  );
  const failed = await signup('refused@example.com');
  await sql('drop trigger mail_refused');
  t.equal(failed.status, 500);
  t.notOk(await userExists('refused@example.com'), 'the account was rolled back with the mail');
  t.equal(await queued('refused@example.com'), 0);
  t.equal((await signup('refused@example.com')).status, 200, 'a retry works');
  t.equal(await queued('refused@example.com'), 1);
});

t.test('every committed signup and change of address has its mail', async (t) => {
  const emails = ['one@example.com', 'two@example.com', 'three@example.com'];
  for (const email of emails) t.equal((await signup(email)).status, 200);
  for (const email of emails) t.equal(await queued(email, 'basic_auth_signup'), 1, email);

  const user = (await rest('admin/user', { email: 'one@example.com' }, admin)).body;
  t.equal((await rest('admin/update_user', { id: user.id, email_verified: true }, admin)).status, 200);
  t.equal(
    (await rest('admin/update_user', { id: user.id, email: 'moved@example.com' }, admin)).status,
    200,
    'an admin change of address without marking it verified',
  );
  t.equal(await queued('moved@example.com', 'update_email'), 1, 'the new address is mailed once');
});

t.test('an invited user and its invitation mail are stored by one commit', async (t) => {
  const invite = (email: string) => rest('admin/invite_members', { emails: [email] }, admin);
  await sql(
    "create trigger invite_refused before insert on latchkey_mail_outbox begin select raise(abort, 'outbox refused'); end",
  );
  const failed = await invite('invited@example.com');
  await sql('drop trigger invite_refused');
  t.equal(failed.status, 500, 'the invitation fails with its mail');
  t.notOk(await userExists('invited@example.com'), 'no invited user is left without an invitation');
  t.equal(await queued('invited@example.com'), 0);

  t.equal((await invite('invited@example.com')).status, 200, 'inviting the address again works');
  t.ok(await userExists('invited@example.com'));
  t.equal(await queued('invited@example.com', 'invite_member'), 1, 'with exactly one invitation mail');
});
