/**
 * Two nodes on one database deliver each event exactly once: two kernels, each with its own
 * delivery worker, share the outbox on PostgreSQL and on MariaDB (rows claimed with FOR UPDATE
 * SKIP LOCKED, storage/claim-rows.ts); events are emitted on both, every third receiver call
 * fails its first attempt, and the receiver still accepts every event exactly once.
 */
import t from 'tap';
import { definePlugin } from '../../../core/plugin.js';
import { outboundPlugin } from '../../../plugins/outbound/index.js';
import { createWebhooksPlugin } from '../../../plugins/webhooks/index.js';
import { databaseTargets } from '../../helpers/databases.js';
import { bootTestKernel } from '../../helpers/kernel.js';
import { FAST_TIMING, startReceiver, waitFor } from './receiver.js';

const SECRET = 'two-nodes-client-secret';
const EVENTS = 40;
const receiver = await startReceiver(SECRET);
t.teardown(() => receiver.close());

const emitter = definePlugin({
  name: 'emitter',
  description: 'declares the event the nodes emit',
  events: ['thing.happened'],
});
const plugins = [
  outboundPlugin,
  emitter,
  createWebhooksPlugin({ timing: { ...FAST_TIMING, batch: 3, timeoutMs: 5000 } }),
];
// SQLite is one file for one node; its claim path is checked in test/storage/claim-rows.test.ts.
const targets = await databaseTargets({ only: ['postgres', 'mariadb'] });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: each event is delivered exactly once by two nodes`, async (t) => {
    const flags = { 'outbound-allow-cidrs': ['127.0.0.1/32'], 'client-secret': SECRET };
    const a = await bootTestKernel({ plugins, database: target, flags });
    t.teardown(() => a.close());
    const b = await bootTestKernel({ plugins, database: target, flags });
    t.teardown(() => b.close());
    const path = `/${target.name}`;
    await a.kernel
      .service('webhooks')
      .add({ event_name: 'thing.happened', endpoint: `${receiver.url}${path}`, enabled: true });
    // Every third event's first attempt is refused: its retry may be taken by either node. The
    // attempt deadline is long: an answer read after it would count as a timeout and be retried.
    const refusedOnce = new Set<string>();
    receiver.answer = (r) => {
      const id = (r.json.user as { id?: string } | null)?.id ?? '';
      if (Number(id.split('-')[1]) % 3 === 0 && !refusedOnce.has(id)) {
        refusedOnce.add(id);
        return 500;
      }
      return 200;
    };
    for (let i = 0; i < EVENTS; i++) {
      (i % 2 === 0 ? a : b).kernel.events.emit('thing.happened', { user: { id: `${target.name}-${i}` } });
    }
    await Promise.all([a.kernel.events.drain(), b.kernel.events.drain()]);
    const accepted = () => receiver.received.filter((r) => r.path === path && r.answered === 200);
    await waitFor(() => accepted().length >= EVENTS, 15000, 'every event to be accepted');
    await Promise.all([a.kernel.service('webhooks').flush(), b.kernel.service('webhooks').flush()]);
    const perEvent = new Map<string, number>();
    for (const r of accepted()) {
      const id = (r.json.user as { id: string }).id;
      perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
    }
    t.equal(perEvent.size, EVENTS, 'every event arrived');
    const logs = await a.kernel.service('webhooks').logs(undefined, { limit: 1000, offset: 0 });
    const unanswered = logs.rows.filter((l) => l.httpStatus === 0).map((l) => l.response);
    t.ok(
      [...perEvent.values()].every((n) => n === 1),
      `none twice (attempts without an answer: ${JSON.stringify(unanswered)})`,
    );
    const all = receiver.received.filter((r) => r.path === path);
    t.equal(all.length, EVENTS + refusedOnce.size, 'one attempt more for each refused first attempt, no other');
    t.ok(
      all.every((r) => r.signatureValid),
      'every attempt signed',
    );
    const rows = await a.kernel.service('webhooks').deliveries();
    t.equal(rows.length, EVENTS);
    t.ok(rows.every((r) => r.state === 'delivered'));
    t.equal(logs.total, EVENTS + refusedOnce.size, 'one log row per attempt');
  });
}
