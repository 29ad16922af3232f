/**
 * The transactional outbox (core/unit-of-work.ts): revoking and restoring a user's access writes
 * the change and its webhook outbox rows in one commit, and so do signups, logins (the session's
 * start), deactivations, user deletions, organization and domain changes and SCIM provisioning. A failure after both were written and
 * before the commit stores neither; a database refusal of the outbox row undoes the change; every
 * change that did commit has exactly one row per webhook of its event, which is then delivered.
 */
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET, TEST_CLIENT_SECRET } from '../../helpers/server.js';
import { scim, USER } from '../scim/scim-client.js';
import { startReceiver } from './receiver.js';

const server = await startTestServer({ flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] } });
t.teardown(() => server.close());
const receiver = await startReceiver(TEST_CLIENT_SECRET);
t.teardown(() => receiver.close());
const admin = { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET };
const webhooks = server.kernel.service('webhooks');
const sql = (statement: string) => server.kernel.storage.orm.em.getConnection().execute(statement, [], 'run');

async function post(path: string, body: unknown, headers: Record<string, string> = admin) {
  const r = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

async function hookFor(event: string): Promise<string> {
  const added = await post('/v1/admin/add_webhook', {
    event_name: event,
    endpoint: `${receiver.url}/${event}`,
    enabled: true,
  });
  if (added.status !== 200) throw new Error(`add_webhook: ${JSON.stringify(added.json)}`);
  const { rows } = await webhooks.list({ limit: 100, offset: 0 });
  return rows.find((r) => r.eventName === event)!.id;
}

const revokedHook = await hookFor('user.access_revoked');
const enabledHook = await hookFor('user.access_enabled');
const PASSWORD = 'Outbox-pass-1';
const signup = await post(
  '/v1/signup',
  { email: 'outbox@example.com', password: PASSWORD, confirm_password: PASSWORD },
  { 'content-type': 'application/json', origin: server.url },
);
const userId = (signup.json.user as { id: string }).id;

const revoked = async () => {
  const user = await post('/v1/admin/user', { id: userId });
  return typeof user.json.revoked_timestamp === 'number' && user.json.revoked_timestamp > 0;
};

// An outbox writer that fails once when armed: it runs after the webhook plugin's writer, so the
// change and its outbox row are both in the unit of work when it throws, before the commit.
let failNext = false;
server.kernel.events.addWriter('user.access_revoked', async () => {
  if (!failNext) return;
  failNext = false;
  throw new Error('injected failure between the outbox write and the commit');
});

t.test('a failure after the change and its outbox row, before the commit, stores neither', async (t) => {
  failNext = true;
  const failed = await post('/v1/admin/revoke_access', { user_id: userId });
  t.equal(failed.status, 500, 'the call fails');
  t.notOk(await revoked(), 'the access change was not stored');
  t.equal((await webhooks.deliveries(revokedHook)).length, 0, 'nor its outbox row');

  const retried = await post('/v1/admin/revoke_access', { user_id: userId });
  t.equal(retried.status, 200);
  t.ok(await revoked(), 'the retried change is stored');
  t.equal((await webhooks.deliveries(revokedHook)).length, 1, 'with its one outbox row');
});

t.test('a database refusal of the outbox row undoes the change it belongs to', async (t) => {
  await sql(
    "create trigger outbox_refused before insert on latchkey_webhook_deliveries begin select raise(abort, 'outbox refused'); end",
  );
  const failed = await post('/v1/admin/enable_access', { user_id: userId });
  await sql('drop trigger outbox_refused');
  t.equal(failed.status, 500, 'the call fails');
  t.ok(await revoked(), 'the user is still revoked: the change was rolled back with the row');
  t.equal((await webhooks.deliveries(enabledHook)).length, 0, 'no outbox row');

  t.equal((await post('/v1/admin/enable_access', { user_id: userId })).status, 200);
  t.notOk(await revoked());
  t.equal((await webhooks.deliveries(enabledHook)).length, 1);
});

t.test('every committed change has its row, and each row is delivered once', async (t) => {
  for (let i = 0; i < 4; i++) {
    t.equal((await post('/v1/admin/revoke_access', { user_id: userId })).status, 200);
    t.equal((await post('/v1/admin/enable_access', { user_id: userId })).status, 200);
  }
  const revokes = await webhooks.deliveries(revokedHook);
  const enables = await webhooks.deliveries(enabledHook);
  t.equal(revokes.length, 5, 'five revocations committed, five rows');
  t.equal(enables.length, 5, 'five restorations committed, five rows');
  await webhooks.flush();
  const delivered = [...(await webhooks.deliveries(revokedHook)), ...(await webhooks.deliveries(enabledHook))];
  t.ok(
    delivered.every((d) => d.state === 'delivered'),
    'every row delivered',
  );
  t.equal(receiver.received.length, 10, 'the receiver got each event once');
  t.ok(
    receiver.received.every((r) => r.signatureValid),
    'signed',
  );
  t.same(
    receiver.received.map((r) => (r.json.user as { id: string }).id),
    Array(10).fill(userId),
  );
});

t.test("a signup's user.created and user.signup rows are stored with the account or not at all", async (t) => {
  const createdHook = await hookFor('user.created');
  const signupHook = await hookFor('user.signup');
  let failSignup = true;
  server.kernel.events.addWriter('user.signup', async () => {
    if (!failSignup) return;
    failSignup = false;
    throw new Error('injected failure between the outbox write and the commit');
  });
  const signupOf = (email: string) =>
    post(
      '/v1/signup',
      { email, password: PASSWORD, confirm_password: PASSWORD },
      { 'content-type': 'application/json', origin: server.url },
    );
  t.equal((await signupOf('unit@example.com')).status, 500, 'the signup fails');
  t.equal((await post('/v1/admin/user', { email: 'unit@example.com' })).status, 404, 'no account');
  t.equal((await webhooks.deliveries(createdHook)).length, 0, 'no user.created row');
  t.equal((await webhooks.deliveries(signupHook)).length, 0, 'no user.signup row');

  t.equal((await signupOf('unit@example.com')).status, 200);
  const created = await webhooks.deliveries(createdHook);
  t.equal(created.length, 1, 'one user.created row');
  t.equal((await webhooks.deliveries(signupHook)).length, 1, 'one user.signup row');
  t.match(JSON.parse(created[0].body), { event_name: 'user.created', user: { email: 'unit@example.com' } });
});

t.test('deactivate_account stores user.deactivated with the change or not at all', async (t) => {
  const hook = await hookFor('user.deactivated');
  let failNext = true;
  server.kernel.events.addWriter('user.deactivated', async () => {
    if (!failNext) return;
    failNext = false;
    throw new Error('injected failure between the outbox write and the commit');
  });
  const browser = { 'content-type': 'application/json', origin: server.url };
  const signed = await post(
    '/v1/signup',
    { email: 'leaving@example.com', password: PASSWORD, confirm_password: PASSWORD },
    browser,
  );
  const bearer = { ...browser, authorization: `Bearer ${signed.json.access_token as string}` };
  t.equal((await post('/v1/deactivate_account', {}, bearer)).status, 500, 'the call fails');
  const id = (signed.json.user as { id: string }).id;
  const user = await post('/v1/admin/user', { id });
  t.notOk(user.json.revoked_timestamp, 'the account is still active');
  t.equal((await webhooks.deliveries(hook)).length, 0, 'no row');
  t.equal((await post('/v1/deactivate_account', {}, bearer)).status, 200);
  t.ok((await post('/v1/admin/user', { id })).json.revoked_timestamp, 'deactivated');
  t.equal((await webhooks.deliveries(hook)).length, 1, 'with its one row');
});

/** An outbox writer for `event` that fails once, after the webhook plugin's writer added its row. */
function failOnce(event: string): void {
  let armed = true;
  server.kernel.events.addWriter(event, async () => {
    if (!armed) return;
    armed = false;
    throw new Error('injected failure between the outbox write and the commit');
  });
}

const browser = { 'content-type': 'application/json', origin: server.url };
const signupAs = async (email: string) =>
  (
    (await post('/v1/signup', { email, password: PASSWORD, confirm_password: PASSWORD }, browser)).json.user as {
      id: string;
    }
  ).id;

t.test("a login's user.login row is stored with the session's start or not at all", async (t) => {
  const hook = await hookFor('user.login');
  const id = await signupAs('login@example.com');
  const sessions = () => server.kernel.memory.keys(`session:${id}:`);
  const before = (await sessions()).length;
  failOnce('user.login');
  const login = () => post('/v1/login', { email: 'login@example.com', password: PASSWORD }, browser);
  const failed = await login();
  t.equal(failed.status, 500, 'the login fails');
  t.notOk(failed.json.access_token, 'no tokens are answered');
  t.equal((await sessions()).length, before, 'the session it started is ended');
  t.equal((await webhooks.deliveries(hook)).length, 0, 'no user.login row');

  const ok = await login();
  t.equal(ok.status, 200);
  t.equal((await sessions()).length, before + 1, 'the retried login has its session');
  const rows = await webhooks.deliveries(hook);
  t.equal(rows.length, 1, 'and its one user.login row');
  t.match(JSON.parse(rows[0].body), { event_name: 'user.login', user: { id }, auth_recipe: 'basic_auth' });
});

t.test("delete_user's user.deleted row is stored with the deletion or not at all", async (t) => {
  const hook = await hookFor('user.deleted');
  const id = await signupAs('deleted@example.com');
  failOnce('user.deleted');
  t.equal((await post('/v1/admin/delete_user', { id })).status, 500, 'the call fails');
  t.equal((await post('/v1/admin/user', { id })).status, 200, 'the user is still stored');
  t.equal((await webhooks.deliveries(hook)).length, 0, 'no user.deleted row');

  t.equal((await post('/v1/admin/delete_user', { id })).status, 200, 'the retry deletes');
  t.equal((await post('/v1/admin/user', { id })).status, 404);
  const rows = await webhooks.deliveries(hook);
  t.equal(rows.length, 1, 'with its one user.deleted row');
  t.match(JSON.parse(rows[0].body), { event_name: 'user.deleted', user: { id, email: 'deleted@example.com' } });
  t.equal((await post('/v1/admin/delete_user', { id })).status, 404, 'a second deletion finds nothing');
  t.equal((await webhooks.deliveries(hook)).length, 1, 'and sends nothing');
});

t.test('organization events are stored with their change or not at all', async (t) => {
  const createdHook = await hookFor('organization.created');
  const deletedHook = await hookFor('organization.deleted');
  const exists = async (id: string) => (await post('/v1/admin/organization', { id })).status === 200;
  const seen: Record<string, unknown>[] = [];
  t.teardown(server.kernel.events.on('organization.created', (e) => void seen.push(e.payload)));
  failOnce('organization.created');
  t.equal((await post('/v1/admin/create_organization', { name: 'outboxed' })).status, 500, 'the creation fails');
  const listed = await post('/v1/admin/organizations', {});
  t.equal((listed.json.organizations as unknown[]).length, 0, 'no organization was stored');
  t.equal((await webhooks.deliveries(createdHook)).length, 0, 'nor its event');

  const created = await post('/v1/admin/create_organization', { name: 'outboxed' });
  t.equal(created.status, 200, 'the retry creates it');
  const id = created.json.id as string;
  const rows = await webhooks.deliveries(createdHook);
  t.equal(rows.length, 1, 'with its one organization.created row');
  t.match(JSON.parse(rows[0].body), { event_name: 'organization.created' });
  await server.kernel.events.drain();
  t.equal(seen.length, 1);
  t.match(seen, [{ organization: { id, name: 'outboxed' } }], 'subscribers heard of the committed creation only');

  failOnce('organization.deleted');
  t.equal((await post('/v1/admin/delete_organization', { id })).status, 500, 'the deletion fails');
  t.ok(await exists(id), 'the organization is still stored');
  t.equal((await webhooks.deliveries(deletedHook)).length, 0, 'no organization.deleted row');
  t.equal((await post('/v1/admin/delete_organization', { id })).status, 200, 'the retry deletes it');
  t.notOk(await exists(id));
  t.equal((await webhooks.deliveries(deletedHook)).length, 1, 'with its one organization.deleted row');
  t.equal((await post('/v1/admin/delete_organization', { id })).status, 404, 'a second deletion finds nothing');
  t.equal((await webhooks.deliveries(deletedHook)).length, 1, 'and stores no event');
});

t.test('SCIM provisioning events are stored with their change or not at all', async (t) => {
  const provisionedHook = await hookFor('user.provisioned');
  const deprovisionedHook = await hookFor('user.deprovisioned');
  const org = await post('/v1/admin/create_organization', { name: 'scim-outbox' });
  const endpoint = await post('/v1/admin/create_scim_endpoint', { org_id: org.json.id });
  const token = endpoint.json.token as string;
  const email = 'provisioned@example.com';
  const provision = () => scim(server, token, 'POST', '/Users', { schemas: [USER], userName: email, active: true });

  failOnce('user.provisioned');
  t.equal((await provision()).status, 500, 'the provisioning fails');
  t.equal((await post('/v1/admin/user', { email })).status, 404, 'no user was stored');
  t.equal((await webhooks.deliveries(provisionedHook)).length, 0, 'nor its event');
  const created = await provision();
  t.equal(created.status, 201, 'the retry provisions the user');
  const id = created.body!.id as string;
  t.equal((await webhooks.deliveries(provisionedHook)).length, 1, 'with its one user.provisioned row');

  failOnce('user.deprovisioned');
  t.equal((await scim(server, token, 'DELETE', `/Users/${id}`)).status, 500, 'the deprovisioning fails');
  t.notOk((await post('/v1/admin/user', { id })).json.revoked_timestamp, 'the user keeps access');
  t.equal((await webhooks.deliveries(deprovisionedHook)).length, 0, 'no user.deprovisioned row');
  t.equal((await scim(server, token, 'DELETE', `/Users/${id}`)).status, 204, 'the retry deprovisions');
  t.ok((await post('/v1/admin/user', { id })).json.revoked_timestamp, 'access revoked');
  t.equal((await webhooks.deliveries(deprovisionedHook)).length, 1, 'with its one user.deprovisioned row');
});

t.test('organization domain events are stored with their change or not at all', async (t) => {
  const verifiedHook = await hookFor('org_domain.verified');
  const deletedHook = await hookFor('org_domain.deleted');
  const org = (await post('/v1/admin/create_organization', { name: 'domain-outbox' })).json.id as string;
  const domain = 'outbox.example';
  const held = async () =>
    ((await post('/v1/admin/org_domains', { org_id: org })).json.org_domains as { domain: string }[]).length;
  const add = () => post('/v1/admin/add_verified_org_domain', { org_id: org, domain });
  const remove = () => post('/v1/admin/delete_org_domain', { domain });

  /** `change` fails once in its event's writer and stores nothing; its retry stores the change and one row. */
  const failsThenStores = async (event: string, hook: string, change: () => ReturnType<typeof post>, after: number) => {
    failOnce(event);
    t.equal((await change()).status, 500, `${event}: the change fails`);
    t.equal(await held(), 1 - after, 'the domains are as they were');
    t.equal((await webhooks.deliveries(hook)).length, 0, 'no row');
    t.equal((await change()).status, 200, 'the retry succeeds');
    t.equal(await held(), after);
    t.equal((await webhooks.deliveries(hook)).length, 1, `with its one ${event} row`);
  };
  await failsThenStores('org_domain.verified', verifiedHook, add, 1);
  t.equal((await add()).status, 200, 'asserting it again');
  t.equal((await webhooks.deliveries(verifiedHook)).length, 1, 'is no new verification');
  await failsThenStores('org_domain.deleted', deletedHook, remove, 0);
});
