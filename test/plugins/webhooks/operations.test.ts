/**
 * The seven webhook operations (the GraphQL schema's names and fields) over REST and GraphQL: add, update,
 * read, list and delete; event names checked against the events the enabled plugins declare;
 * endpoints checked as http(s) URLs the guarded client may reach; `test_endpoint` sends a signed,
 * simulated delivery. Bad input on every operation is a 4xx in the envelope and writes nothing.
 */
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET, TEST_CLIENT_SECRET } from '../../helpers/server.js';
import { startReceiver } from './receiver.js';

const server = await startTestServer({ flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] } });
t.teardown(() => server.close());
const receiver = await startReceiver(TEST_CLIENT_SECRET);
t.teardown(() => receiver.close());
const admin = { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET };

async function post(path: string, body: unknown, headers: Record<string, string> = admin) {
  const r = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

async function graphql(query: string, variables: Record<string, unknown> = {}) {
  const r = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ query, variables }),
  });
  return (await r.json()) as { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[] };
}

const counts = async () => {
  const list = await server.kernel.service('webhooks').list({ limit: 1, offset: 0 });
  const deliveries = await server.kernel.service('webhooks').deliveries();
  return { webhooks: list.total, deliveries: deliveries.length };
};

t.test('add, read, list, update and delete a webhook', async (t) => {
  const added = await post('/v1/admin/add_webhook', {
    event_name: 'user.login',
    event_description: 'logins',
    endpoint: `${receiver.url}/hook`,
    enabled: true,
    headers: { authorization: 'Bearer abc' },
  });
  t.same(added, { status: 200, json: { message: 'Added webhook successfully' } });
  const listed = await post('/v1/admin/webhooks', { pagination: { limit: 10 } });
  t.equal(listed.status, 200);
  const [hook] = listed.json.webhooks as Record<string, unknown>[];
  t.match(hook, {
    event_name: 'user.login',
    event_description: 'logins',
    endpoint: `${receiver.url}/hook`,
    enabled: true,
    headers: { authorization: 'Bearer abc' },
  });
  t.match(listed.json.pagination, { total: 1 });
  const one = await post('/v1/admin/webhook', { id: hook.id });
  t.same(one.json, hook);

  const updated = await post('/v1/admin/update_webhook', { id: hook.id, enabled: false, headers: {} });
  t.equal(updated.status, 200);
  t.match((await post('/v1/admin/webhook', { id: hook.id })).json, {
    enabled: false,
    headers: {},
    event_name: 'user.login',
  });

  const gq = await graphql(
    'query($p: WebhookRequest!) { _webhook(params: $p) { id event_name event_description endpoint enabled headers created_at updated_at } }',
    { p: { id: hook.id } },
  );
  t.notOk(gq.errors, JSON.stringify(gq.errors));
  t.match(gq.data?._webhook, { id: hook.id, event_name: 'user.login' });
  const gqList = await graphql(
    '{ _webhooks { pagination { total } webhooks { id } } _webhook_logs { webhook_logs { id http_status response request webhook_id created_at updated_at } } }',
  );
  t.notOk(gqList.errors, JSON.stringify(gqList.errors));

  t.equal((await post('/v1/admin/delete_webhook', { id: hook.id })).status, 200);
  t.equal((await post('/v1/admin/webhook', { id: hook.id })).status, 404);
  t.equal((await post('/v1/admin/delete_webhook', { id: hook.id })).status, 404, 'deleting twice');
});

t.test('event names are those the enabled plugins declare', async (t) => {
  const events = server.kernel.service('webhooks').events;
  for (const name of ['user.login', 'user.signup', 'user.access_revoked', 'user.access_enabled', 'user.deleted'])
    t.ok(events.has(name), `${name} is declared`);
  const declared = new Set(server.kernel.plugins.flatMap((p) => p.events ?? []));
  t.same([...events].sort(), [...declared].sort(), 'exactly the union of every plugin `events` list');
});

t.test('test_endpoint sends a signed, simulated delivery and answers what came back', async (t) => {
  receiver.answer = () => 202;
  const sent = await post('/v1/admin/test_endpoint', {
    endpoint: `${receiver.url}/probe`,
    event_name: 'user.signup',
    event_description: 'probe',
    headers: { 'x-probe': '1' },
  });
  t.same(sent, { status: 200, json: { http_status: 202, response: 'answered 202' } });
  const got = receiver.received.at(-1)!;
  t.ok(got.signatureValid, 'signed with the client secret');
  t.equal(got.headers['x-probe'], '1');
  t.match(got.json, {
    event_name: 'user.signup',
    event_description: 'probe',
    user: { email: 'test-user@example.com' },
  });
  const gq = await graphql(
    'mutation($p: TestEndpointRequest!) { _test_endpoint(params: $p) { http_status response } }',
    {
      p: { endpoint: `${receiver.url}/probe`, event_name: 'user.login' },
    },
  );
  t.same(gq.data?._test_endpoint, { http_status: 202, response: 'answered 202' });
  receiver.answer = () => 200;
});

t.test('bad input on every webhook operation is a 4xx and writes nothing', async (t) => {
  await post('/v1/admin/add_webhook', { event_name: 'user.login', endpoint: `${receiver.url}/keep`, enabled: true });
  const [kept] = (await post('/v1/admin/webhooks', {})).json.webhooks as { id: string }[];
  const before = await counts();
  const good = { event_name: 'user.login', endpoint: `${receiver.url}/x`, enabled: true };
  const cases: [string, unknown, number][] = [
    ['add_webhook', {}, 400],
    ['add_webhook', { ...good, event_name: 'user.nothing' }, 400],
    ['add_webhook', { ...good, event_name: '' }, 400],
    ['add_webhook', { ...good, endpoint: 'ftp://127.0.0.1/' }, 400],
    ['add_webhook', { ...good, endpoint: 'not a url' }, 400],
    ['add_webhook', { ...good, endpoint: 'http://user:pw@127.0.0.1/' }, 400],
    ['add_webhook', { ...good, endpoint: 'http://169.254.169.254/latest' }, 400],
    ['add_webhook', { ...good, endpoint: 'http://[fd00:ec2::254]/' }, 400],
    ['add_webhook', { ...good, endpoint: `http://x/${'a'.repeat(2100)}` }, 400],
    ['add_webhook', { ...good, enabled: 'yes' }, 400],
    ['add_webhook', { ...good, headers: { 'x-ok': 5 } }, 400],
    ['add_webhook', { ...good, headers: { 'bad name': 'v' } }, 400],
    ['add_webhook', { ...good, headers: { 'x-service-signature': 'forged' } }, 400],
    ['add_webhook', { ...good, headers: { 'content-type': 'text/plain' } }, 400],
    ['add_webhook', { ...good, headers: { 'x-a': 'a\r\nb' } }, 400],
    [
      'add_webhook',
      { ...good, headers: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`x-${i}`, 'v'])) },
      400,
    ],
    ['add_webhook', { ...good, extra: 1 }, 400],
    ['update_webhook', {}, 400],
    ['update_webhook', { id: kept.id, event_name: 'nope' }, 400],
    ['update_webhook', { id: kept.id, endpoint: 'http://10.0.0.1/' }, 400],
    ['update_webhook', { id: kept.id, headers: { host: 'evil' } }, 400],
    ['update_webhook', { id: 'missing', enabled: false }, 404],
    ['delete_webhook', {}, 400],
    ['delete_webhook', { id: 'missing' }, 404],
    ['webhook', { id: '' }, 400],
    ['webhook', { id: 'missing' }, 404],
    ['webhooks', { pagination: { limit: -1 } }, 400],
    ['webhook_logs', { webhook_id: 5 }, 400],
    ['test_endpoint', {}, 400],
    ['test_endpoint', { endpoint: 'http://127.0.0.1:1/', event_name: 'nope' }, 400],
    ['test_endpoint', { endpoint: 'http://10.0.0.1/', event_name: 'user.login' }, 400],
    ['test_endpoint', { endpoint: 'gopher://127.0.0.1/', event_name: 'user.login' }, 400],
    ['test_endpoint', { endpoint: 'http://127.0.0.1:1/', event_name: 'user.login' }, 400],
  ];
  for (const [op, body, status] of cases) {
    const r = await post(`/v1/admin/${op}`, body);
    t.equal(r.status, status, `${op} ${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(r.json)}`);
    t.match(r.json, { code: String, message: String }, 'in the error envelope');
  }
  t.same(await counts(), before, 'no webhook or delivery written');
  t.match(
    (await post('/v1/admin/webhook', { id: kept.id })).json,
    { event_name: 'user.login', enabled: true },
    'the kept one unchanged',
  );
  const anonymous = await post('/v1/admin/webhooks', {}, { 'content-type': 'application/json', origin: server.url });
  t.equal(anonymous.status, 401, 'admins only');
});
