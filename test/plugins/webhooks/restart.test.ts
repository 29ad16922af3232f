/**
 * A restart resumes pending deliveries: a server stopped while an event waits for its next
 * attempt delivers it once started again on the same database; and a row a killed node left
 * claimed (its lease still on the row) is taken by the restarted server once that lease runs out.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { defaultPlugins } from '../../../plugins/default.js';
import { WebhookDeliveryEntity } from '../../../plugins/webhooks/entities.js';
import { createWebhooksPlugin } from '../../../plugins/webhooks/index.js';
import { startTestServer, TEST_ADMIN_SECRET, TEST_CLIENT_SECRET, type TestServer } from '../../helpers/server.js';
import { FAST_TIMING, startReceiver, waitFor } from './receiver.js';

const dir = await mkdtemp(join(tmpdir(), 'latchkey-webhooks-restart-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const receiver = await startReceiver(TEST_CLIENT_SECRET);
t.teardown(() => receiver.close());

// Retries far apart, so the stop comes while the event waits for its second attempt.
const timing = { ...FAST_TIMING, baseDelayMs: 600, maxDelayMs: 600 };
const plugins = defaultPlugins.map((p) => (p.name === 'webhooks' ? createWebhooksPlugin({ timing }) : p));
const start = () =>
  startTestServer({
    plugins,
    flags: {
      'outbound-allow-cidrs': ['127.0.0.1/32'],
      'database-type': 'sqlite',
      'database-url': join(dir, 'db.sqlite'),
    },
  });

async function post(server: TestServer, path: string, body: unknown) {
  const r = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

t.test('a server stopped with deliveries pending delivers them after restart', async (t) => {
  receiver.answer = () => 503;
  const first = await start();
  t.equal(
    (
      await post(first, '/v1/admin/add_webhook', {
        event_name: 'user.access_revoked',
        endpoint: `${receiver.url}/r`,
        enabled: true,
      })
    ).status,
    200,
  );
  const signup = await post(first, '/v1/signup', {
    email: 'restart@example.com',
    password: 'Some-pass1',
    confirm_password: 'Some-pass1',
  });
  const userId = (signup.json.user as { id: string }).id;
  await post(first, '/v1/admin/revoke_access', { user_id: userId });
  await waitFor(() => receiver.received.length >= 1, 5000, 'the first attempt');
  const [pending] = await first.kernel.service('webhooks').deliveries();
  t.match(pending, { state: 'pending', attempts: 1 }, 'waiting for its second attempt');
  await first.close();

  receiver.answer = () => 200;
  const second = await start();
  t.teardown(() => second.close());
  await waitFor(
    async () => (await second.kernel.service('webhooks').deliveries())[0]?.state === 'delivered',
    5000,
    'delivery',
  );
  t.same(
    receiver.received.map((r) => r.answered),
    [503, 200],
    'the event was accepted once, by the restarted server',
  );
  t.ok(receiver.received.every((r) => r.signatureValid));
  t.match(receiver.received[1].json, { event_name: 'user.access_revoked', user: { id: userId } });

  // A node killed mid-attempt leaves its claim on the row; nobody else takes it until it runs out.
  const webhooks = second.kernel.service('webhooks');
  const before = receiver.received.length;
  await post(second, '/v1/admin/enable_access', { user_id: userId });
  await post(second, '/v1/admin/add_webhook', {
    event_name: 'user.access_enabled',
    endpoint: `${receiver.url}/killed`,
    enabled: false,
  });
  const [hook] = (await webhooks.list({ limit: 10, offset: 0 })).rows.filter((r) => r.endpoint.endsWith('/killed'));
  await webhooks.update({ id: hook.id, enabled: true });
  const now = Date.now();
  const em = second.kernel.storage.em();
  em.create(WebhookDeliveryEntity, {
    id: 'left-by-a-killed-node',
    webhookId: hook.id,
    eventName: 'user.access_enabled',
    body: JSON.stringify({ webhook_id: hook.id, event_name: 'user.access_enabled', event_description: '', user: null }),
    state: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    leaseUntil: now + 700,
    leaseOwner: 'a-node-that-died',
    lastError: null,
    createdAt: now,
    updatedAt: now,
  } as never);
  await em.flush();
  await webhooks.flush();
  t.equal(receiver.received.length, before, 'not taken while the dead node’s lease holds');
  await waitFor(
    async () => (await webhooks.deliveries(hook.id))[0]?.state === 'delivered',
    5000,
    'the abandoned row to be delivered',
  );
  t.ok(Date.now() >= now + 700, 'taken only after the lease ran out');
  t.equal(receiver.received.filter((r) => r.path === '/killed').length, 1, 'delivered once');
});
