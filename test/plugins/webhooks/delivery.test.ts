/**
 * Webhook delivery through the real server to a real local receiver: every delivery carries the
 * documented event body and a signature the receiver verifies with the client secret; a receiver that
 * fails twice gets the event once with three attempts logged; one that never answers, or answers
 * with a final 4xx, ends in the give-up state; a disabled webhook gets nothing.
 */
import t from 'tap';
import { defaultPlugins } from '../../../plugins/default.js';
import { createWebhooksPlugin } from '../../../plugins/webhooks/index.js';
import { CUT_OFF } from '../../../plugins/webhooks/worker.js';
import { startTestServer, TEST_ADMIN_SECRET, TEST_CLIENT_SECRET } from '../../helpers/server.js';
import { FAST_TIMING, startReceiver, waitFor } from './receiver.js';

const plugins = defaultPlugins.map((p) => (p.name === 'webhooks' ? createWebhooksPlugin({ timing: FAST_TIMING }) : p));
const server = await startTestServer({ plugins, flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] } });
t.teardown(() => server.close());
const receiver = await startReceiver(TEST_CLIENT_SECRET);
t.teardown(() => receiver.close());
const admin = { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET };
const webhooks = server.kernel.service('webhooks');

async function post(path: string, body: unknown) {
  const r = await fetch(`${server.url}${path}`, { method: 'POST', headers: admin, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

async function newUser(email: string): Promise<string> {
  const r = await post('/v1/signup', { email, password: 'Some-pass1', confirm_password: 'Some-pass1' });
  return (r.json.user as { id: string }).id;
}

async function addWebhook(path: string, event = 'user.access_revoked', enabled = true): Promise<string> {
  const added = await post('/v1/admin/add_webhook', {
    event_name: event,
    event_description: `${event} at ${path}`,
    endpoint: `${receiver.url}${path}`,
    enabled,
    headers: { 'x-tenant': 'acme' },
  });
  if (added.status !== 200) throw new Error(JSON.stringify(added.json));
  const { rows } = await webhooks.list({ limit: 100, offset: 0 });
  return rows.find((r) => r.endpoint.endsWith(path))!.id;
}

/** Waits until every outbox row of the webhook has left `pending`. */
const settled = (webhookId: string) =>
  waitFor(
    async () => {
      const rows = await webhooks.deliveries(webhookId);
      return rows.length > 0 && rows.every((r) => r.state !== 'pending');
    },
    8000,
    'the deliveries to settle',
  );

async function logsOf(webhookId: string) {
  const r = await post('/v1/admin/webhook_logs', { webhook_id: webhookId, pagination: { limit: 50 } });
  return r.json.webhook_logs as { http_status: number; response?: string; request?: string; webhook_id: string }[];
}

t.test('a delivery is signed with the client secret and carries the contract body', async (t) => {
  const webhookId = await addWebhook('/signed');
  const userId = await newUser('signed@example.com');
  t.equal((await post('/v1/admin/revoke_access', { user_id: userId })).status, 200);
  await settled(webhookId);
  const got = receiver.received.filter((r) => r.path === '/signed');
  t.equal(got.length, 1, 'one delivery');
  t.ok(got[0].signatureValid, 'the signature verifies against the client secret');
  t.equal(got[0].headers['content-type'], 'application/json');
  t.equal(got[0].headers['x-tenant'], 'acme', "the webhook's own headers are sent");
  t.same(Object.keys(got[0].json), ['webhook_id', 'event_name', 'event_description', 'user']);
  t.match(got[0].json, {
    webhook_id: webhookId,
    event_name: 'user.access_revoked',
    event_description: 'user.access_revoked at /signed',
    user: { id: userId, email: 'signed@example.com' },
  });
  const logs = await logsOf(webhookId);
  t.equal(logs.length, 1);
  t.match(logs[0], { http_status: 200, response: 'answered 200', webhook_id: webhookId });
  t.equal(logs[0].request, got[0].body, 'the log keeps the request as sent');
});

t.test('a receiver that fails twice gets the event once, with three attempts logged', async (t) => {
  let calls = 0;
  receiver.answer = (r) => (r.path === '/flaky' ? (++calls <= 2 ? (calls === 1 ? 503 : 429) : 200) : 200);
  const webhookId = await addWebhook('/flaky');
  const userId = await newUser('flaky@example.com');
  await post('/v1/admin/revoke_access', { user_id: userId });
  await settled(webhookId);
  const got = receiver.received.filter((r) => r.path === '/flaky');
  t.same(
    got.map((r) => r.answered),
    [503, 429, 200],
    'two refusals, then the one accepted delivery',
  );
  t.ok(
    got.every((r) => r.signatureValid && r.body === got[0].body),
    'every attempt sends the same signed bytes',
  );
  t.equal(new Set(got.map((r) => r.headers['x-service-delivery-id'])).size, 1, 'one delivery id across attempts');
  const logs = await logsOf(webhookId);
  t.same(logs.map((l) => l.http_status).sort(), [200, 429, 503], 'three attempts in the log');
  const [row] = await webhooks.deliveries(webhookId);
  t.match(row, { state: 'delivered', attempts: 3 });
});

t.test('a receiver that never answers ends in the give-up state', async (t) => {
  receiver.answer = (r) => (r.path === '/silent' ? 'hang' : 200);
  const webhookId = await addWebhook('/silent');
  const userId = await newUser('silent@example.com');
  await post('/v1/admin/revoke_access', { user_id: userId });
  await settled(webhookId);
  const [row] = await webhooks.deliveries(webhookId);
  t.match(row, { state: 'failed', attempts: FAST_TIMING.maxAttempts });
  const logs = await logsOf(webhookId);
  t.equal(logs.length, FAST_TIMING.maxAttempts, 'each attempt logged');
  t.ok(
    logs.every((l) => l.http_status === 0 && /^timeout/.test(l.response ?? '')),
    'with the reason no answer came',
  );
});

t.test('an attempt is in the log while its request is in flight, and gets its answer after', async (t) => {
  receiver.answer = (r) => (r.path === '/in-flight' ? 'hang' : 200);
  const webhookId = await addWebhook('/in-flight');
  const userId = await newUser('in-flight@example.com');
  const seen = receiver.received.length;
  await post('/v1/admin/revoke_access', { user_id: userId });
  await waitFor(() => receiver.received.slice(seen).some((r) => r.path === '/in-flight'), 5000, 'the first attempt');
  // The receiver holds the request: a process killed now leaves this entry, and its retry after a
  // restart is the next logged attempt.
  const during = await logsOf(webhookId);
  t.equal(during.length, 1, 'the attempt is logged before any answer');
  t.match(during[0], { http_status: 0, response: CUT_OFF });
  await waitFor(
    async () => (await logsOf(webhookId)).some((l) => /^timeout/.test(l.response ?? '')),
    5000,
    'the deadline',
  );
  const after = await logsOf(webhookId);
  t.ok(
    after.filter((l) => /^timeout/.test(l.response ?? '')).length >= 1,
    'the entry holds the outcome once the attempt ends',
  );
  receiver.answer = () => 200;
  await settled(webhookId);
});

t.test('a final answer (4xx, 3xx) is not retried; a disabled webhook gets nothing', async (t) => {
  receiver.answer = (r) => (r.path === '/gone' ? 410 : r.path === '/moved' ? 302 : 200);
  const gone = await addWebhook('/gone');
  const moved = await addWebhook('/moved');
  const disabled = await addWebhook('/disabled', 'user.access_revoked', false);
  const userId = await newUser('final@example.com');
  await post('/v1/admin/revoke_access', { user_id: userId });
  await settled(gone);
  await settled(moved);
  t.match(await webhooks.deliveries(gone), [{ state: 'failed', attempts: 1 }]);
  t.match(await webhooks.deliveries(moved), [{ state: 'failed', attempts: 1 }], 'a redirect is not followed');
  t.same(await webhooks.deliveries(disabled), [], 'no outbox row for a disabled webhook');
  t.equal(receiver.received.filter((r) => r.path === '/disabled').length, 0);
});

t.test('other events reach only their own webhooks', async (t) => {
  receiver.answer = () => 200;
  const enabledHook = await addWebhook('/enabled', 'user.access_enabled');
  await webhooks.flush();
  const before = receiver.received.filter((r) => r.path === '/signed').length;
  const userId = await newUser('enable@example.com');
  await post('/v1/admin/revoke_access', { user_id: userId });
  await post('/v1/admin/enable_access', { user_id: userId });
  await settled(enabledHook);
  const got = receiver.received.filter((r) => r.path === '/enabled');
  t.equal(got.length, 1);
  t.match(got[0].json, { event_name: 'user.access_enabled', user: { id: userId } });
  await webhooks.flush();
  t.equal(receiver.received.filter((r) => r.path === '/signed').length, before + 1, 'the revoke webhook got its own');
});
