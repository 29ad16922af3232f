/**
 * One webhook runs up to `perWebhookConcurrency` attempts at once, and more only while as many
 * slots stay free for the others: through the real server, a webhook whose receiver never
 * answers, with 30 deliveries queued before another webhook's few, holds every slot but that
 * reserve, while the other webhook's deliveries arrive at once, far inside the 10 s attempt
 * deadline the held requests run into; its other deliveries wait queued, unleased and with no
 * attempt counted, and all arrive once its receiver answers again. With a share of one and two
 * slots, a webhook's queued deliveries arrive one at a time in the order they were queued, the
 * retry of the cut-off one after them.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { defaultPlugins } from '../../../plugins/default.js';
import { createWebhooksPlugin, DEFAULT_DELIVERY_TIMING, type DeliveryTiming } from '../../../plugins/webhooks/index.js';
import { startTestServer, TEST_ADMIN_SECRET, TEST_CLIENT_SECRET, type TestServer } from '../../helpers/server.js';
import { FAST_TIMING, startReceiver, waitFor } from './receiver.js';

const CAP = DEFAULT_DELIVERY_TIMING.perWebhookConcurrency;
/** What one webhook holds when it is the only one with due rows: every slot but the reserve. */
const ALONE = DEFAULT_DELIVERY_TIMING.concurrency - CAP;

/**
 * A receiver that holds every request unanswered until told to answer again; it counts the
 * requests open at once (from arrival until the answer is sent or the connection closes).
 */
interface HoldingReceiver {
  url: string;
  /** The event (the body's `user.id`) of each request, in the order they arrived. */
  arrivals: string[];
  /** The events answered 200, in the order of their answers. */
  accepted: string[];
  open: number;
  mostOpen: number;
  /** Answers the held requests 200, and every later request at once. */
  answerAgain(): void;
  /** Closes the held requests' connections unanswered (a receiver restarted), then answers at once. */
  cutAndAnswer(): void;
  close(): Promise<void>;
}

async function startHoldingReceiver(): Promise<HoldingReceiver> {
  const held: { res: ServerResponse; id: string }[] = [];
  let holding = true;
  const answer = (res: ServerResponse, id: string) => {
    receiver.accepted.push(id);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  };
  const server = createServer((req, res) => {
    receiver.open++;
    receiver.mostOpen = Math.max(receiver.mostOpen, receiver.open);
    res.on('close', () => receiver.open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { user?: { id?: string } };
      const id = body.user?.id ?? '';
      receiver.arrivals.push(id);
      if (holding) held.push({ res, id });
      else answer(res, id);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: HoldingReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals: [],
    accepted: [],
    open: 0,
    mostOpen: 0,
    answerAgain() {
      holding = false;
      for (const { res, id } of held.splice(0)) answer(res, id);
    },
    cutAndAnswer() {
      holding = false;
      for (const { res } of held.splice(0)) res.socket?.destroy();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/**
 * The default attempt deadline, claim size and slots, so that a held request holds its slot as
 * long as in production; retries and polls in milliseconds.
 */
const TIMING: Partial<DeliveryTiming> = {
  ...FAST_TIMING,
  timeoutMs: DEFAULT_DELIVERY_TIMING.timeoutMs,
  batch: DEFAULT_DELIVERY_TIMING.batch,
  concurrency: DEFAULT_DELIVERY_TIMING.concurrency,
  leaseMarginMs: DEFAULT_DELIVERY_TIMING.leaseMarginMs,
};

async function boot(t: Test, timing: Partial<DeliveryTiming>): Promise<TestServer> {
  const plugins = defaultPlugins.map((p) => (p.name === 'webhooks' ? createWebhooksPlugin({ timing }) : p));
  const server = await startTestServer({ plugins, flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] } });
  t.teardown(() => server.close());
  return server;
}

/** Adds a webhook through the admin API; answers its id. */
async function addWebhook(server: TestServer, event: string, endpoint: string): Promise<string> {
  const r = await fetch(`${server.url}/v1/admin/add_webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET },
    body: JSON.stringify({ event_name: event, endpoint, enabled: true }),
  });
  if (r.status !== 200) throw new Error(`add_webhook answered ${r.status}: ${await r.text()}`);
  const { rows } = await server.kernel.service('webhooks').list({ limit: 100, offset: 0 });
  return rows.find((row) => row.endpoint === endpoint)!.id;
}

const userOf = (json: Record<string, unknown>) => (json.user as { id: string }).id;

t.test(
  'a webhook whose receiver never answers holds every slot but the reserve; the other webhooks go on',
  async (t) => {
    const server = await boot(t, TIMING);
    const webhooks = server.kernel.service('webhooks');
    const holder = await startHoldingReceiver();
    t.teardown(() => holder.close());
    const fast = await startReceiver(TEST_CLIENT_SECRET);
    t.teardown(() => fast.close());
    const hanging = await addWebhook(server, 'user.access_revoked', `${holder.url}/hang`);
    const quick = await addWebhook(server, 'user.access_enabled', `${fast.url}/fast`);

    const HELD = 30;
    const FAST = 5;
    for (let i = 0; i < HELD; i++) await webhooks.enqueue('user.access_revoked', { user: { id: `held-${i}` } });
    const queuedAt = Date.now();
    for (let i = 0; i < FAST; i++) await webhooks.enqueue('user.access_enabled', { user: { id: `fast-${i}` } });

    await waitFor(() => fast.received.length >= FAST, 8000, "the fast webhook's deliveries");
    const lastFast = Math.max(...fast.received.map((r) => r.arrivedAt));
    t.ok(
      lastFast - queuedAt < 4000,
      `the fast webhook's ${FAST} deliveries arrived ${lastFast - queuedAt} ms after they were queued, far inside the ${DEFAULT_DELIVERY_TIMING.timeoutMs} ms attempt deadline`,
    );
    t.same(
      fast.received.map((r) => userOf(r.json)).sort(),
      Array.from({ length: FAST }, (_, i) => `fast-${i}`).sort(),
      'each once',
    );
    t.ok(
      fast.received.every((r) => r.signatureValid),
      'signed',
    );
    await waitFor(() => holder.arrivals.length >= ALONE, 8000, 'the held requests');
    // Time for any request beyond that to arrive, were one let through.
    await sleep(500);
    t.ok(ALONE > CAP, `alone, the webhook runs more than its share of ${CAP}`);
    t.equal(holder.arrivals.length, ALONE, `${ALONE} requests reached the receiver that never answers`);
    t.equal(holder.mostOpen, ALONE, `${ALONE} open at once at most: ${CAP} slots stay free for the others`);
    t.same(
      [...holder.arrivals].sort(),
      Array.from({ length: ALONE }, (_, i) => `held-${i}`).sort(),
      'the oldest deliveries are the ones in flight',
    );
    const waiting = await webhooks.deliveries(hanging);
    const inFlight = waiting.filter((r) => r.leaseOwner !== null);
    const queued = waiting.filter((r) => r.leaseOwner === null);
    t.equal(inFlight.length, ALONE, 'as many rows leased as requests held');
    t.ok(
      inFlight.every((r) => r.state === 'pending' && r.attempts === 1),
      'each with its attempt counted',
    );
    t.equal(queued.length, HELD - ALONE, 'the others queued');
    t.ok(
      queued.every((r) => r.state === 'pending' && r.attempts === 0 && r.leaseUntil === null),
      'pending, unleased, no attempt counted',
    );
    t.ok(
      (await webhooks.deliveries(quick)).every((r) => r.state === 'delivered' && r.attempts === 1),
      "the fast webhook's rows delivered at their first attempt",
    );

    holder.answerAgain();
    await waitFor(
      async () => (await webhooks.deliveries(hanging)).every((r) => r.state === 'delivered'),
      10_000,
      "the held webhook's deliveries once its receiver answers",
    );
    await webhooks.flush();
    t.same(
      [...holder.accepted].sort(),
      Array.from({ length: HELD }, (_, i) => `held-${i}`).sort(),
      'once its receiver answers again, every queued delivery arrives, each once',
    );
    t.equal(holder.arrivals.length, HELD, 'no request repeated');
    t.ok(holder.mostOpen <= ALONE, `never more than ${ALONE} open at once (most: ${holder.mostOpen})`);
    t.ok(
      (await webhooks.deliveries(hanging)).every((r) => r.attempts === 1),
      'each delivered at its first attempt: waiting counted none',
    );
    const logs = await webhooks.logs(hanging, { limit: 100, offset: 0 });
    t.equal(logs.total, HELD, 'one log entry per attempt');
  },
);

t.test(
  'with a share of one and two slots, queued deliveries arrive one at a time in the order they were queued',
  async (t) => {
    // The second slot is the reserve another webhook could start in.
    const server = await boot(t, { ...TIMING, concurrency: 2, perWebhookConcurrency: 1 });
    const webhooks = server.kernel.service('webhooks');
    const holder = await startHoldingReceiver();
    t.teardown(() => holder.close());
    const hook = await addWebhook(server, 'user.deleted', `${holder.url}/ordered`);
    const EVENTS = 12;
    for (let i = 0; i < EVENTS; i++) {
      await webhooks.enqueue('user.deleted', { user: { id: `ordered-${i}` } });
      // Each row due a little after the one before it.
      await sleep(3);
    }
    await waitFor(() => holder.arrivals.length >= 1, 8000, 'the first request');
    await sleep(300);
    t.same(holder.arrivals, ['ordered-0'], 'only the oldest delivery is in flight');
    // The receiver comes back: the held request's connection is closed unanswered, so that
    // attempt failed and is retried after a backoff, behind the rows that were due before it.
    holder.cutAndAnswer();
    await waitFor(
      async () => (await webhooks.deliveries(hook)).every((r) => r.state === 'delivered'),
      10_000,
      'every delivery',
    );
    await webhooks.flush();
    const order = [...Array.from({ length: EVENTS - 1 }, (_, i) => `ordered-${i + 1}`), 'ordered-0'];
    t.same(holder.accepted, order, 'accepted in the order queued, the cut-off one after its retry became due');
    t.same(holder.arrivals, ['ordered-0', ...order], 'each request once, the cut-off one twice');
    t.equal(holder.mostOpen, 1, 'one request open at a time');
    const rows = await webhooks.deliveries(hook);
    t.same(
      rows.map((r) => [userOf(JSON.parse(r.body) as Record<string, unknown>), r.attempts]),
      Array.from({ length: EVENTS }, (_, i) => [`ordered-${i}`, i === 0 ? 2 : 1]),
      'the cut-off delivery took two attempts, every other one attempt',
    );
  },
);
