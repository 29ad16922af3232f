/**
 * Webhook delivery in /metrics, through the real server and a real local receiver:
 * `latchkey_webhook_deliveries_total` counts a delivered attempt, each failed attempt that will be
 * tried again (`retry`), a delivery given up on a final answer (`failed`) and a row cancelled
 * because its webhook was disabled before its retry (`cancelled`); `latchkey_webhook_attempts_in_flight`
 * is back to 0 once nothing runs.
 */
import t from 'tap';
import { defaultPlugins } from '../../../plugins/default.js';
import { createWebhooksPlugin } from '../../../plugins/webhooks/index.js';
import { startTestServer, TEST_ADMIN_SECRET, TEST_CLIENT_SECRET } from '../../helpers/server.js';
import { FAST_TIMING, startReceiver, waitFor } from './receiver.js';

/** A retry waits this long, so a webhook can be disabled before it. */
const BACKOFF_MS = 1500;
const timing = { ...FAST_TIMING, baseDelayMs: BACKOFF_MS, maxDelayMs: BACKOFF_MS };
const plugins = defaultPlugins.map((p) => (p.name === 'webhooks' ? createWebhooksPlugin({ timing }) : p));
const server = await startTestServer({ plugins, flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] } });
t.teardown(() => server.close());
const receiver = await startReceiver(TEST_CLIENT_SECRET);
t.teardown(() => receiver.close());
const webhooks = server.kernel.service('webhooks');

const metrics = async () => (await fetch(`${server.metricsUrl}/metrics`)).text();
const counted = async (outcome: string): Promise<number> => {
  const found = new RegExp(`^latchkey_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(
    await metrics(),
  );
  return Number(found?.[1] ?? Number.NaN);
};

async function admin(name: string, body: unknown) {
  const r = await fetch(`${server.url}/v1/admin/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET },
    body: JSON.stringify(body),
  });
  if (r.status !== 200) throw new Error(`${name}: ${r.status} ${await r.text()}`);
}

async function addWebhook(event: string, path: string): Promise<string> {
  await admin('add_webhook', { event_name: event, endpoint: `${receiver.url}${path}`, enabled: true });
  const { rows } = await webhooks.list({ limit: 100, offset: 0 });
  return rows.find((r) => r.endpoint.endsWith(path))!.id;
}

t.test('every outcome is declared at 0 before any delivery', async (t) => {
  const text = await metrics();
  t.match(text, /^# TYPE latchkey_webhook_deliveries_total counter$/m);
  t.match(text, /^# TYPE latchkey_webhook_attempts_in_flight gauge$/m);
  for (const outcome of ['delivered', 'retry', 'failed', 'cancelled']) t.equal(await counted(outcome), 0, outcome);
});

t.test('retries, deliveries, give-ups and cancellations are counted', async (t) => {
  // /late fails once, then answers 200; /gone answers a final 404; /down fails until disabled.
  const seen = new Map<string, number>();
  receiver.answer = (request) => {
    const n = (seen.get(request.path) ?? 0) + 1;
    seen.set(request.path, n);
    if (request.path === '/late') return n === 1 ? 503 : 200;
    if (request.path === '/gone') return 404;
    return 503;
  };
  await addWebhook('user.deleted', '/late');
  await addWebhook('user.login', '/gone');
  const down = await addWebhook('user.access_revoked', '/down');
  await webhooks.enqueue('user.deleted', { user: { id: 'u1' } });
  await webhooks.enqueue('user.login', { user: { id: 'u2' } });
  await webhooks.enqueue('user.access_revoked', { user: { id: 'u3' } });

  await waitFor(async () => (await counted('failed')) === 1 && (await counted('retry')) === 2, 5000, 'first attempts');
  await admin('update_webhook', { id: down, enabled: false });
  await waitFor(
    async () => (await counted('delivered')) === 1 && (await counted('cancelled')) === 1,
    BACKOFF_MS * 4,
    'the retry delivered and the disabled webhook cancelled',
  );
  t.equal(await counted('retry'), 2, "/late's and /down's first attempts were retried");
  t.equal(await counted('failed'), 1, '/gone gave up on its 404');
  t.same(Object.fromEntries(seen), { '/late': 2, '/gone': 1, '/down': 1 }, 'the receiver saw each attempt once');
  await webhooks.flush();
  t.match(await metrics(), /^latchkey_webhook_attempts_in_flight 0$/m, 'nothing in flight once settled');
});
