/**
 * The audit log through the real server: an FGA reset is recorded with who did it and from
 * where, and admins list records over REST and GraphQL with the filters of
 * the admin operation `audit_logs`; anyone else is refused, and a bad filter is a 400 in the envelope.
 */
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());
const admin = { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET };

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = admin,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

interface Log {
  actor_id: string;
  actor_type: string;
  action: string;
  resource_type: string;
  resource_id: string;
  ip_address?: string;
  user_agent?: string;
  created_at: number;
}

t.test('an FGA reset is recorded, and the record is listed with its filters', async (t) => {
  const before = Math.floor(Date.now() / 1000);
  t.equal(
    (await post('/v1/admin/fga/model', { dsl: 'model\n  schema 1.1\ntype user\n' })).status,
    200,
    'a model installed',
  );
  const reset = await post('/v1/admin/fga/reset', {}, { ...admin, 'user-agent': 'audit-test/1.0' });
  t.equal(reset.status, 200, JSON.stringify(reset.json));
  await server.kernel.events.drain();
  const all = await post('/v1/admin/audit_logs', { resource_type: 'fga_store' });
  t.equal(all.status, 200);
  const logs = all.json.audit_logs as Log[];
  t.equal(logs.length, 1, 'one record of the store');
  t.match(logs[0], {
    action: 'fga.reset',
    resource_type: 'fga_store',
    resource_id: '',
    actor_type: 'admin',
    ip_address: '127.0.0.1',
    user_agent: 'audit-test/1.0',
  });
  t.ok(
    logs[0].created_at >= before && logs[0].created_at <= Math.floor(Date.now() / 1000) + 1,
    'created_at in Unix seconds',
  );
  t.match(all.json.pagination, { total: 1, page: 1 });

  const now = logs[0].created_at;
  // The model write and the list calls are audited too: the time filters are checked on the store's rows.
  const filtered = async (body: Record<string, unknown>) =>
    ((await post('/v1/admin/audit_logs', body)).json.audit_logs as Log[]).length;
  const ofStore = (body: Record<string, unknown>) => filtered({ resource_type: 'fga_store', ...body });
  t.equal(await filtered({ action: 'fga.reset' }), 1, 'by action');
  t.equal(await filtered({ action: 'FGA.RESET' }), 0, 'actions match exactly');
  t.equal(await filtered({ resource_type: 'fga_store', actor_id: logs[0].actor_id }), 1, 'by resource type and actor');
  t.equal(await filtered({ actor_id: 'user:nobody' }), 0, 'another actor');
  t.equal(await ofStore({ from_timestamp: now, to_timestamp: now }), 1, 'a one-second window, both ends inclusive');
  t.equal(await ofStore({ from_timestamp: now + 1 }), 0, 'after it');
  t.equal(await ofStore({ to_timestamp: now - 1 }), 0, 'before it');

  const graphql = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({
      query:
        '{ _audit_logs(params: { action: "fga.reset" }) { pagination { total } audit_logs { action resource_type user_agent created_at } } }',
    }),
  });
  const gq = (await graphql.json()) as {
    data?: { _audit_logs: { pagination: { total: number }; audit_logs: Log[] } };
    errors?: unknown;
  };
  t.notOk(gq.errors, JSON.stringify(gq.errors));
  t.match(
    gq.data?._audit_logs,
    {
      pagination: { total: 1 },
      audit_logs: [{ action: 'fga.reset', resource_type: 'fga_store', user_agent: 'audit-test/1.0', created_at: now }],
    },
    'the same over GraphQL',
  );
});

t.test('only admins list audit records; bad filters are a 400', async (t) => {
  const anonymous = await post('/v1/admin/audit_logs', {}, { 'content-type': 'application/json', origin: server.url });
  t.equal(anonymous.status, 401);
  const inverted = await post('/v1/admin/audit_logs', { from_timestamp: 20, to_timestamp: 10 });
  t.same(inverted, {
    status: 400,
    json: { code: 'invalid_argument', message: 'from_timestamp is after to_timestamp' },
  });
  t.equal((await post('/v1/admin/audit_logs', { from_timestamp: -1 })).status, 400, 'negative time');
  // Past the database's integer range they would be a 500 on PostgreSQL.
  for (const huge of [1e300, 9_223_372_036_854_775_807, 8_640_000_000_001])
    t.equal((await post('/v1/admin/audit_logs', { to_timestamp: huge })).status, 400, `time ${huge}`);
  t.equal((await post('/v1/admin/audit_logs', { action: 'x'.repeat(129) })).status, 400, 'oversized filter');
  t.equal((await post('/v1/admin/audit_logs', { secret: 'x' })).status, 400, 'unknown field');
});

t.test('a reset whose audit record cannot be written answers an error, not a silent success', async (t) => {
  t.equal((await post('/v1/admin/fga/model', { dsl: 'model\n  schema 1.1\ntype user\n' })).status, 200);
  const audit = server.kernel.service('audit');
  const record = audit.record.bind(audit);
  audit.record = async () => {
    throw new Error('the disk is full');
  };
  t.teardown(() => {
    audit.record = record;
  });
  const reset = await post('/v1/admin/fga/reset', {});
  t.equal(reset.status, 500);
  t.same(reset.json, { code: 'internal', message: 'internal server error' }, 'the envelope, no detail leaked');
  // The record is written before anything is deleted: the store is untouched.
  const model = await fetch(`${server.url}/v1/admin/fga/model`, { headers: admin });
  t.match(await model.json(), { dsl: /type user/ }, 'the model is still installed');
});

const count = async (): Promise<number> =>
  ((await post('/v1/admin/audit_logs', { action: 'fga.reset' })).json.pagination as { total: number }).total;

t.test('a reset refused for its tuples leaves no record', async (t) => {
  t.equal(
    (
      await post('/v1/admin/fga/model', {
        dsl: 'model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]\n',
      })
    ).status,
    200,
  );
  t.equal(
    (await post('/v1/admin/fga/tuples', { tuples: [{ user: 'user:a', relation: 'viewer', object: 'doc:1' }] })).status,
    200,
  );
  const before = await count();
  const reset = await post('/v1/admin/fga/reset', {});
  t.equal(reset.status, 400, JSON.stringify(reset.json));
  t.equal(await count(), before, 'nothing recorded');
  t.equal(
    (await post('/v1/admin/fga/tuples/delete', { tuples: [{ user: 'user:a', relation: 'viewer', object: 'doc:1' }] }))
      .status,
    200,
  );
});

t.test('a reset refused after its record was written (a tuple written in between) is recorded as failed', async (t) => {
  t.equal(
    (
      await post('/v1/admin/fga/model', {
        dsl: 'model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]\n',
      })
    ).status,
    200,
  );
  const audit = server.kernel.service('audit');
  const record = audit.record.bind(audit);
  const written: Record<string, unknown>[] = [];
  // A write from another admin lands between the check and the reset.
  audit.record = async (event) => {
    written.push(event.payload);
    if (written.length === 1)
      await server.kernel.service('fga').writeTuples([{ user: 'user:b', relation: 'viewer', object: 'doc:2' }]);
    await record(event);
  };
  t.teardown(() => {
    audit.record = record;
  });
  const before = await count();
  const reset = await post('/v1/admin/fga/reset', {});
  t.equal(reset.status, 400, 'refused by the store under its lock');
  t.equal(await count(), before + 2, 'the attempt and its failure');
  t.match(written[1], { metadata: { outcome: 'failed', error: /still has tuples/ } });
  const model = await fetch(`${server.url}/v1/admin/fga/model`, { headers: admin });
  t.match(await model.json(), { dsl: /type doc/ }, 'nothing was deleted');
});
