/**
 * An FGA reset and its `fga.reset` webhook outbox rows are stored by one commit when the store is
 * kept in the main database (core/unit-of-work.ts): a failure after both were written and before
 * the commit stores neither, and so does a database refusal of the outbox row; a reset that did
 * commit has exactly one row per webhook, which is delivered. On every SQL database. A store of
 * its own (`--fga-store memory`) shares no transaction with the main database: its reset still
 * sends the event once, after its commit.
 */
import t from 'tap';
import { databaseTargets } from '../../helpers/databases.js';
import { refuseInserts } from '../../helpers/refuse-inserts.js';
import { startTestServer, TEST_ADMIN_SECRET, TEST_CLIENT_SECRET, type TestServer } from '../../helpers/server.js';
import { startReceiver } from '../webhooks/receiver.js';

const DSL = 'model\n  schema 1.1\ntype user\n';

const receiver = await startReceiver(TEST_CLIENT_SECRET);
t.teardown(() => receiver.close());

/** The admin calls, the hook for `fga.reset` and a writer that fails once when armed. */
async function setUp(server: TestServer) {
  const admin = { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET };
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${server.url}${path}`, {
      method,
      headers: admin,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };
  const added = await call('POST', '/v1/admin/add_webhook', {
    event_name: 'fga.reset',
    endpoint: `${receiver.url}/fga.reset`,
    enabled: true,
  });
  if (added.status !== 200) throw new Error(`add_webhook: ${JSON.stringify(added.json)}`);
  const webhooks = server.kernel.service('webhooks');
  const hook = (await webhooks.list({ limit: 10, offset: 0 })).rows.find((r) => r.eventName === 'fga.reset')!.id;
  let armed = false;
  // Runs after the webhook plugin's writer: the outbox row is in the unit when it throws.
  server.kernel.events.addWriter('fga.reset', async () => {
    if (!armed) return;
    armed = false;
    throw new Error('injected failure between the outbox write and the commit');
  });
  return {
    failNext: () => void (armed = true),
    install: () => call('POST', '/v1/admin/fga/model', { dsl: DSL }),
    reset: () => call('POST', '/v1/admin/fga/reset', {}),
    modelId: async () => (await call('GET', '/v1/admin/fga/model')).json.id as string,
    rows: () => webhooks.deliveries(hook),
    webhooks,
  };
}

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: the reset and its event are stored together or not at all`, async (t) => {
    const server = await startTestServer({
      database: target,
      flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] },
    });
    t.teardown(() => server.close());
    const fx = await setUp(server);
    t.equal((await fx.install()).status, 200, 'a model installed');
    const installed = await fx.modelId();
    t.ok(installed, 'the model is in force');

    fx.failNext();
    t.equal((await fx.reset()).status, 500, 'a failure before the commit fails the reset');
    t.equal(await fx.modelId(), installed, 'the model was not deleted');
    t.equal((await fx.rows()).length, 0, 'nor was its outbox row stored');

    const allow = await refuseInserts(server.kernel.storage, 'latchkey_webhook_deliveries');
    const refused = await fx.reset();
    await allow();
    t.equal(refused.status, 500, 'a refused outbox row fails the reset');
    t.equal(await fx.modelId(), installed, 'the reset was rolled back with the row');
    t.equal((await fx.rows()).length, 0, 'no outbox row');

    const before = receiver.received.length;
    const done = await fx.reset();
    t.equal(done.status, 200, 'the retry resets');
    t.notOk(await fx.modelId(), 'no model is left');
    t.equal((await fx.rows()).length, 1, 'with its one fga.reset row');

    await fx.webhooks.flush();
    t.match(await fx.rows(), [{ state: 'delivered' }], 'the row is delivered');
    const sent = receiver.received.slice(before);
    t.equal(sent.length, 1, 'once');
    t.match(sent[0], { signatureValid: true, json: { event_name: 'fga.reset' } });
  });
}

t.test('a store of its own sends the event after its reset commits', async (t) => {
  const server = await startTestServer({
    flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'], 'fga-store': 'memory' },
  });
  t.teardown(() => server.close());
  const fx = await setUp(server);
  t.equal((await fx.install()).status, 200);
  const heard: unknown[] = [];
  t.teardown(server.kernel.events.on('fga.reset', (e) => void heard.push(e.payload)));
  t.equal((await fx.reset()).status, 200);
  t.notOk(await fx.modelId(), 'reset');
  await server.kernel.events.drain();
  t.equal((await fx.rows()).length, 1, 'one fga.reset row');
  t.equal(heard.length, 1, 'subscribers heard it once');
});
