/**
 * A slow receiver holds only its own deliveries: with one receiver answering after 2 s and
 * another at once, both subscribed to the same events, every delivery to the fast one is
 * accepted before the slow one has answered its first, each delivery once; and the worker never
 * has more than its `concurrency` attempts in flight, refilling a freed slot at once rather than
 * waiting for the slowest of a batch.
 */
import t, { type Test } from 'tap';
import { definePlugin } from '../../../core/plugin.js';
import { outboundPlugin } from '../../../plugins/outbound/index.js';
import { createWebhooksPlugin } from '../../../plugins/webhooks/index.js';
import { bootTestKernel } from '../../helpers/kernel.js';
import { FAST_TIMING, startReceiver, waitFor, type Received } from './receiver.js';

const SECRET = 'slow-receiver-client-secret';
const receiver = await startReceiver(SECRET);
t.teardown(() => receiver.close());

const emitter = definePlugin({
  name: 'emitter',
  description: 'declares the event the test emits',
  events: ['thing.happened'],
});

async function boot(t: Test, concurrency: number) {
  // The attempt deadline leaves the slow receiver's 2 s answer well inside it.
  const timing = { ...FAST_TIMING, timeoutMs: 6000, batch: 4, concurrency };
  const booted = await bootTestKernel({
    plugins: [outboundPlugin, emitter, createWebhooksPlugin({ timing })],
    flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'], 'client-secret': SECRET },
  });
  t.teardown(() => booted.close());
  return booted;
}

/** The most requests of `list` the receiver held unanswered at one time. */
function mostAtOnce(list: Received[]): number {
  const edges = list.flatMap((r) => [
    { at: r.arrivedAt, step: 1 },
    { at: r.answeredAt ?? Number.POSITIVE_INFINITY, step: -1 },
  ]);
  // An answer and an arrival in the same millisecond: the answer came first (a freed slot).
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let open = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (open += e.step));
  return most;
}

t.test('deliveries to a fast receiver are not held behind a slow one', async (t) => {
  const { kernel } = await boot(t, 8);
  const webhooks = kernel.service('webhooks');
  await webhooks.add({ event_name: 'thing.happened', endpoint: `${receiver.url}/slow`, enabled: true });
  await webhooks.add({ event_name: 'thing.happened', endpoint: `${receiver.url}/fast`, enabled: true });
  receiver.answer = (r) => (r.path === '/slow' ? { status: 200, afterMs: 2000 } : 200);
  const EVENTS = 5;
  for (let i = 0; i < EVENTS; i++) kernel.events.emit('thing.happened', { user: { id: `user-${i}` } });
  await kernel.events.drain();
  const of = (path: string) => receiver.received.filter((r) => r.path === path);
  await waitFor(() => of('/fast').length >= EVENTS && of('/slow').length >= EVENTS, 10_000, 'every delivery');
  await webhooks.flush();
  const fast = of('/fast');
  const slow = of('/slow');
  const firstSlowAnswer = Math.min(...slow.map((r) => r.answeredAt ?? Number.POSITIVE_INFINITY));
  const lastFast = Math.max(...fast.map((r) => r.answeredAt ?? Number.POSITIVE_INFINITY));
  t.ok(
    lastFast < firstSlowAnswer,
    `the fast receiver had all ${EVENTS} before the slow one answered once (last fast ${lastFast - slow[0].arrivedAt} ms after the first slow request)`,
  );
  const ids = (list: Received[]) => list.map((r) => (r.json.user as { id: string }).id).sort();
  const expected = Array.from({ length: EVENTS }, (_, i) => `user-${i}`).sort();
  t.same(ids(fast), expected, 'the fast receiver got each event once');
  t.same(ids(slow), expected, 'the slow receiver got each event once');
  t.ok(
    [...fast, ...slow].every((r) => r.signatureValid),
    'every delivery signed',
  );
  const rows = await webhooks.deliveries();
  t.equal(rows.length, EVENTS * 2);
  t.ok(
    rows.every((r) => r.state === 'delivered' && r.attempts === 1),
    'every row delivered at its first attempt',
  );
  const logs = await webhooks.logs(undefined, { limit: 100, offset: 0 });
  t.equal(logs.total, EVENTS * 2, 'one log entry per attempt');
  t.ok(
    logs.rows.every((l) => l.httpStatus === 200),
    'each with its answer',
  );
});

t.test('no more than `concurrency` attempts at once, a freed slot refilled at once', async (t) => {
  const { kernel } = await boot(t, 2);
  const webhooks = kernel.service('webhooks');
  await webhooks.add({ event_name: 'thing.happened', endpoint: `${receiver.url}/bounded`, enabled: true });
  // Each answer takes a little longer than the one before: with batches, the third and fourth
  // attempts would wait for the second; with slots, the third starts when the first ends.
  receiver.answer = (r, i) => (r.path === '/bounded' ? { status: 200, afterMs: 300 + 1000 * (i % 2) } : 200);
  const EVENTS = 6;
  for (let i = 0; i < EVENTS; i++) kernel.events.emit('thing.happened', { user: { id: `bounded-${i}` } });
  await kernel.events.drain();
  const of = () => receiver.received.filter((r) => r.path === '/bounded');
  await waitFor(() => of().length >= EVENTS && of().every((r) => r.answeredAt), 15_000, 'every delivery');
  await webhooks.flush();
  const got = [...of()].sort((a, b) => a.arrivedAt - b.arrivedAt);
  t.equal(got.length, EVENTS, 'each event once');
  t.equal(mostAtOnce(got), 2, 'two attempts in flight at most, and two at some point');
  // The third request leaves once the first answer is in, before the second answer.
  const [first, second, third] = got;
  const firstDone = Math.min(first.answeredAt!, second.answeredAt!);
  const secondDone = Math.max(first.answeredAt!, second.answeredAt!);
  t.ok(third.arrivedAt >= firstDone, 'the third attempt waited for a free slot');
  t.ok(
    third.arrivedAt < secondDone,
    `the third attempt did not wait for the slower of the first two (${third.arrivedAt - firstDone} ms after the first answer, ${secondDone - third.arrivedAt} ms before the second)`,
  );
  t.ok(
    (await webhooks.deliveries()).every((r) => r.state === 'delivered'),
    'all delivered',
  );
});
