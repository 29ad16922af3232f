/**
 * Which webhooks want an event is kept in process on a SQLite file while nothing is committed
 * (plugins/webhooks/service.ts): a webhook added, disabled or enabled again by another node
 * sharing the file, or by this one, is seen by the very next event.
 */
import t from 'tap';
import { definePlugin } from '../../../core/plugin.js';
import { outboundPlugin } from '../../../plugins/outbound/index.js';
import { createWebhooksPlugin } from '../../../plugins/webhooks/index.js';
import { sqliteTarget } from '../../helpers/databases.js';
import { bootTestKernel } from '../../helpers/kernel.js';
import { FAST_TIMING, startReceiver } from './receiver.js';

const SECRET = 'kept-subscribers-secret';
const receiver = await startReceiver(SECRET);
t.teardown(() => receiver.close());
const emitter = definePlugin({ name: 'emitter', description: 'declares the event', events: ['thing.happened'] });
const plugins = [outboundPlugin, emitter, createWebhooksPlugin({ timing: FAST_TIMING })];
const target = await sqliteTarget();
t.teardown(() => target.dispose());
const flags = { 'outbound-allow-cidrs': ['127.0.0.1/32'], 'client-secret': SECRET };
const a = await bootTestKernel({ plugins, database: target, flags });
t.teardown(() => a.close());
const b = await bootTestKernel({ plugins, database: target, flags });
t.teardown(() => b.close());
const onA = a.kernel.service('webhooks');
const onB = b.kernel.service('webhooks');
// Each event's deliveries are settled on both nodes before the next step. Both kernels run in this
// one process on a synchronous SQLite driver: a claim of one node that waits for the other node's
// open transaction blocks the thread that transaction needs to finish, until the busy timeout.
const enqueued = async () => {
  const rows = await onA.enqueue('thing.happened', { user: { id: 'u' } });
  await Promise.all([onA.flush(), onB.flush()]);
  return rows;
};

t.test('changes made by either node are seen by the next event', async (t) => {
  t.equal(await enqueued(), 0, 'no webhook yet');
  t.equal(await enqueued(), 0, 'still none (answered from what was kept)');
  const hook = await onB.add({ event_name: 'thing.happened', endpoint: `${receiver.url}/b`, enabled: true });
  t.equal(await enqueued(), 1, "the other node's new webhook gets the next event");
  await onB.update({ id: hook.id, enabled: false });
  t.equal(await enqueued(), 0, "the other node's disabling is seen at once");
  await onA.update({ id: hook.id, enabled: true });
  t.equal(await enqueued(), 1, "this node's own change is seen at once");
  await onA.add({ event_name: 'thing.happened', endpoint: `${receiver.url}/a`, enabled: true });
  t.equal(await enqueued(), 2);
  await onB.remove(hook.id);
  t.equal(await enqueued(), 1, 'a removal too');
});
