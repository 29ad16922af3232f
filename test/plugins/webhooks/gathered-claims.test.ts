/**
 * Claims are gathered while attempts are in flight: through the real server, an event enqueued
 * to an idle worker is claimed at once, while events enqueued during an attempt wait for the
 * gathering window and are then claimed and delivered together; with no window each is claimed at
 * its enqueue.
 */
import t, { type Test } from 'tap';
import { defaultPlugins } from '../../../plugins/default.js';
import { createWebhooksPlugin, type DeliveryTiming } from '../../../plugins/webhooks/index.js';
import { startTestServer, TEST_ADMIN_SECRET, TEST_CLIENT_SECRET } from '../../helpers/server.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { FAST_TIMING, startReceiver, waitFor } from './receiver.js';

const GATHER_MS = 600;
/** The first delivery's answer is held this long, so an attempt stays in flight meanwhile. */
const HOLD_MS = 3000;

async function scenario(t: Test, gatherMs: number) {
  const timing: Partial<DeliveryTiming> = { ...FAST_TIMING, timeoutMs: 10_000, pollMs: 10_000, gatherMs };
  const plugins = defaultPlugins.map((p) => (p.name === 'webhooks' ? createWebhooksPlugin({ timing }) : p));
  const server = await startTestServer({ plugins, flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] } });
  t.teardown(() => server.close());
  const receiver = await startReceiver(TEST_CLIENT_SECRET);
  t.teardown(() => receiver.close());
  receiver.answer = (_req, index) => (index === 0 ? { status: 200, afterMs: HOLD_MS } : 200);
  const r = await fetch(`${server.url}/v1/admin/add_webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET },
    body: JSON.stringify({ event_name: 'user.deleted', endpoint: `${receiver.url}/hook`, enabled: true }),
  });
  t.equal(r.status, 200, 'webhook added');
  const webhooks = server.kernel.service('webhooks');
  const enqueuedAt = new Map<string, number>();
  const enqueue = async (id: string) => {
    enqueuedAt.set(id, Date.now());
    await webhooks.enqueue('user.deleted', { user: { id } });
  };

  await enqueue('first');
  await waitFor(() => receiver.received.length >= 1, 5000, 'the first delivery');
  const first = receiver.received[0]!;
  t.ok(
    first.arrivedAt - enqueuedAt.get('first')! < GATHER_MS / 2,
    `an idle worker claims at the enqueue (${first.arrivedAt - enqueuedAt.get('first')!} ms)`,
  );
  for (const id of ['b', 'c', 'd']) {
    await enqueue(id);
    await sleep(20);
  }
  await waitFor(() => receiver.received.length >= 4, 5000, 'the three later deliveries');
  const arrival = (id: string) => receiver.received.find((x) => (x.json.user as { id: string }).id === id)!.arrivedAt;
  t.equal(first.answeredAt, undefined, 'the first attempt was still in flight when they arrived');
  return {
    delay: arrival('b') - enqueuedAt.get('b')!,
    spread: Math.max(...['b', 'c', 'd'].map(arrival)) - arrival('b'),
  };
}

t.test('events enqueued while an attempt is in flight are claimed together after the window', async (t) => {
  const { delay, spread } = await scenario(t, GATHER_MS);
  t.ok(delay >= GATHER_MS - 100, `the first of them waited for the window (${delay} ms)`);
  t.ok(spread < GATHER_MS / 2, `and the three arrived together (${spread} ms apart at most)`);
});

t.test('with no window each event is claimed at its enqueue', async (t) => {
  const { delay } = await scenario(t, 0);
  t.ok(delay < GATHER_MS - 100, `the first of them was claimed at once (${delay} ms)`);
});
