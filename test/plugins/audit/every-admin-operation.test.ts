/**
 * Every admin operation of the default distribution is audited (docs/audit.md): each declares an
 * `audit` field, and each, called once over REST, leaves exactly one audit row with its declared
 * action and resource type and the resource it acted on. An admin operation added without a
 * declaration, or without a call in CALLS below, fails here with a message saying what to add.
 */
import t from 'tap';
import type { CompiledOperation } from '../../../core/operations.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

const server = await startTestServer({
  flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] },
});
t.teardown(() => server.close());
const headers = {
  'content-type': 'application/json',
  origin: server.url,
  'x-service-admin-secret': TEST_ADMIN_SECRET,
  'user-agent': 'audit-sweep/1.0',
};

/** What earlier calls made, for later calls' inputs and expected resources. */
const made: Record<string, string> = {};

interface Call {
  /** The input, built from what earlier calls made. */
  input?: () => Record<string, unknown>;
  /** The id of the resource acted on ('' for a list or a whole store). */
  resource?: () => string;
  /** Remembers ids of what the call made. */
  keep?: (answer: Record<string, unknown>) => void;
}

const MODEL = 'model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]\n';
const TUPLES = { tuples: [{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }] };

/** One call per admin operation, in an order where each finds what it needs. */
const CALLS: Record<string, Call> = {
  _admin_login: { input: () => ({ admin_secret: TEST_ADMIN_SECRET }) },
  _admin_session: {},
  _admin_meta: {},
  _users: { input: () => ({}) },
  _user: { input: () => ({ id: made.user }), resource: () => made.user },
  _update_user: { input: () => ({ id: made.user, given_name: 'Audited' }), resource: () => made.user },
  _revoke_access: { input: () => ({ user_id: made.user }), resource: () => made.user },
  _enable_access: { input: () => ({ user_id: made.user }), resource: () => made.user },
  _verification_requests: { input: () => ({}) },
  _create_client: {
    input: () => ({
      name: 'audited',
      allowed_scopes: ['openid'],
      redirect_uris: ['https://app.example/cb'],
      post_logout_redirect_uris: [],
    }),
    keep: (a) => (made.client = (a.client as { id: string }).id),
    resource: () => made.client,
  },
  _update_client: { input: () => ({ id: made.client, name: 'audited-2' }), resource: () => made.client },
  _rotate_client_secret: { input: () => ({ id: made.client }), resource: () => made.client },
  _client: { input: () => ({ id: made.client }), resource: () => made.client },
  _clients: { input: () => ({}) },
  _fga_write_model: {
    input: () => ({ dsl: MODEL }),
    keep: (a) => (made.model = a.id as string),
    resource: () => made.model,
  },
  _fga_get_model: { resource: () => made.model },
  _fga_write_tuples: { input: () => TUPLES },
  _fga_read_tuples: { input: () => ({}) },
  _fga_list_users: {
    input: () => ({ object: 'doc:1', relation: 'viewer', user_type: 'user' }),
    resource: () => 'doc:1',
  },
  _fga_expand: { input: () => ({ relation: 'viewer', object: 'doc:1' }), resource: () => 'doc:1' },
  _fga_delete_tuples: { input: () => TUPLES },
  _fga_reset: {},
  _audit_logs: { input: () => ({}) },
  _add_webhook: {
    input: () => ({ event_name: 'user.login', endpoint: 'http://127.0.0.1:9/hook', enabled: false }),
    keep: (a) => (made.webhook = a.id as string),
    resource: () => made.webhook,
  },
  _update_webhook: { input: () => ({ id: made.webhook, enabled: false }), resource: () => made.webhook },
  _webhook: { input: () => ({ id: made.webhook }), resource: () => made.webhook },
  _webhooks: { input: () => ({}) },
  _webhook_logs: { input: () => ({ webhook_id: made.webhook }), resource: () => made.webhook },
  _test_endpoint: { input: () => ({ endpoint: 'http://127.0.0.1:9/hook', event_name: 'user.login' }) },
  _delete_webhook: { input: () => ({ id: made.webhook }), resource: () => made.webhook },
  _delete_client: { input: () => ({ id: made.client }), resource: () => made.client },
  _delete_user: { input: () => ({ id: made.user }), resource: () => made.user },
  _admin_logout: {},
};

const adminOperations = [...server.kernel.operations.values()].filter((op) => op.isAdmin && !op.def.deprecated);

t.test('every admin operation declares what it audits', async (t) => {
  for (const op of adminOperations) {
    t.ok(
      op.def.audit,
      `${op.def.name} (plugin ${op.plugin}) has no audit declaration: add \`audit: { action: '<resource>.<verb>', resourceType: '<resource>', resourceId: ({ input, output }) => ... }\` to its defineOperation (docs/audit.md)`,
    );
  }
});

t.test('every admin operation has a call in this table', async (t) => {
  for (const op of adminOperations) {
    t.ok(
      CALLS[op.def.name],
      `${op.def.name} (plugin ${op.plugin}) has no call in CALLS of test/plugins/audit/every-admin-operation.test.ts: add one with a valid input and the resource it acts on`,
    );
  }
});

async function call(op: CompiledOperation, input: Record<string, unknown> | undefined) {
  const r = await fetch(`${server.url}${op.restPath}`, {
    method: op.restMethod,
    headers,
    ...(op.restMethod === 'POST' ? { body: JSON.stringify(input ?? {}) } : {}),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

t.test('each admin operation, called once, leaves exactly one audit row', async (t) => {
  const signup = await fetch(`${server.url}/v1/signup`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email: 'audited@example.com', password: 'Secret-pass1', confirm_password: 'Secret-pass1' }),
  });
  const signed = (await signup.json()) as { user: { id: string } };
  t.equal(signup.status, 200, 'a user to act on');
  made.user = signed.user.id;
  const audit = server.kernel.service('audit');
  const byName = new Map(adminOperations.map((op) => [op.def.name, op]));
  for (const [name, spec] of Object.entries(CALLS)) {
    const op = byName.get(name);
    if (!op) continue; // a plugin of this table that the default distribution does not hold
    const before = (await audit.list({}, { limit: 1, offset: 0 })).total;
    const answer = await call(op, spec.input?.());
    t.equal(answer.status, 200, `${name} answered ${JSON.stringify(answer.json).slice(0, 300)}`);
    spec.keep?.(answer.json);
    await server.kernel.events.drain();
    const { rows, total } = await audit.list({}, { limit: 1, offset: 0 });
    t.equal(total - before, 1, `${name}: exactly one audit row`);
    t.match(
      rows[0],
      {
        action: op.def.audit?.action,
        resourceType: op.def.audit?.resourceType,
        resourceId: spec.resource?.() ?? '',
        actorType: 'admin',
        ipAddress: '127.0.0.1',
        userAgent: 'audit-sweep/1.0',
      },
      `${name}: action ${op.def.audit?.action} on its resource`,
    );
  }
});

t.test('no row holds a secret the calls carried', async (t) => {
  const { rows } = await server.kernel.service('audit').list({}, { limit: 1000, offset: 0 });
  const text = JSON.stringify(rows);
  t.notOk(text.includes(TEST_ADMIN_SECRET), 'not the admin secret');
  t.notOk(text.includes('Secret-pass1'), 'not a password');
});
