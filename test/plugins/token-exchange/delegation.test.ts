/**
 * Agent delegation end to end (RFC 8693): an agent exchanges a user's
 * access token and its own client-credentials token for a five-minute delegated token with `act`
 * and no refresh token; permission checks answer the intersection of agent and user over REST and
 * at /mcp (for a token bound to {url}/mcp), each token is refused on the other surface, the token
 * ends with the user's session, and every malformed exchange is an RFC 6749 error, never a 5xx.
 */
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

const server = await startTestServer({ flags: { 'mcp-enabled': true } });
t.teardown(() => server.close());
const base = server.url;

const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const admin = (op: string, body: unknown) =>
  post(`/v1/admin/${op}`, body, { 'x-service-admin-secret': TEST_ADMIN_SECRET });
const token = async (params: Record<string, string>) => {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

let agent: { id: string; secret: string };
let other: { id: string; secret: string };
let user: { id: string; token: string };

const newClient = async (name: string) => {
  const created = await admin('create_client', { name, allowed_scopes: ['openid', 'email', 'profile'] });
  return { id: (created.body.client as { client_id: string }).client_id, secret: created.body.client_secret as string };
};
const actorToken = async (c: { id: string; secret: string }) =>
  (await token({ grant_type: 'client_credentials', client_id: c.id, client_secret: c.secret, scope: 'openid' })).body
    .access_token as string;
const exchange = async (extra: Record<string, string> = {}, c = agent) =>
  token({
    grant_type: EXCHANGE,
    client_id: c.id,
    client_secret: c.secret,
    subject_token: user.token,
    subject_token_type: ACCESS,
    actor_token: await actorToken(c),
    actor_token_type: ACCESS,
    ...extra,
  });
const check = (bearer: string, objects: string[], extra: Record<string, unknown> = {}) =>
  post(
    '/v1/check_permissions',
    { checks: objects.map((object) => ({ relation: 'viewer', object })), ...extra },
    { authorization: `Bearer ${bearer}` },
  );

t.before(async () => {
  agent = await newClient('Agent');
  other = await newClient('Other agent');
  const model = await admin('fga/model', {
    dsl: 'model\n  schema 1.1\ntype user\ntype agent\ntype doc\n  relations\n    define viewer: [user, agent]\n',
  });
  if (model.status !== 200) throw new Error(JSON.stringify(model.body));
  const signup = await post('/v1/signup', {
    email: 'delegator@example.com',
    password: 'Deleg-pass-1',
    confirm_password: 'Deleg-pass-1',
  });
  const body = signup.body as { access_token: string; user: { id: string } };
  user = { id: body.user.id, token: body.access_token };
  const tuples = await admin('fga/tuples', {
    tuples: [
      { user: `user:${user.id}`, relation: 'viewer', object: 'doc:a' },
      { user: `user:${user.id}`, relation: 'viewer', object: 'doc:b' },
      { user: `agent:${agent.id}`, relation: 'viewer', object: 'doc:b' },
      { user: `agent:${agent.id}`, relation: 'viewer', object: 'doc:c' },
    ],
  });
  if (tuples.status !== 200) throw new Error(JSON.stringify(tuples.body));
});

t.test('the exchange answers a five-minute delegated token naming the agent, without a refresh token', async (t) => {
  const res = await exchange();
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.equal(res.body.issued_token_type, ACCESS);
  t.equal(res.body.token_type, 'Bearer');
  t.notOk(res.body.refresh_token, 'no refresh token');
  const claims = claimsOf(res.body.access_token as string);
  t.match(claims, { sub: user.id, client_id: agent.id, act: { sub: `agent:${agent.id}` }, aud: new URL(base).origin });
  t.equal((claims.exp as number) - (claims.iat as number), 300, 'five minutes');
  t.equal(res.body.expires_in, claims.exp, 'expires_in is the timestamp of expiry');
  const discovery = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as {
    grant_types_supported: string[];
  };
  t.ok(discovery.grant_types_supported.includes(EXCHANGE), 'discovery advertises the grant');
});

t.test('permission checks are the intersection of agent and user, and the agent half cannot be dropped', async (t) => {
  const delegated = (await exchange()).body.access_token as string;
  const res = await check(delegated, ['doc:a', 'doc:b', 'doc:c']);
  t.same(
    (res.body.results as { allowed: boolean }[]).map((r) => r.allowed),
    [false, true, false],
    'only what both hold',
  );
  const mine = await check(user.token, ['doc:a', 'doc:b', 'doc:c']);
  t.same(
    (mine.body.results as { allowed: boolean }[]).map((r) => r.allowed),
    [true, true, false],
    'the user alone',
  );
  const listed = await post(
    '/v1/list_permissions',
    { relation: 'viewer', object_type: 'doc' },
    { authorization: `Bearer ${delegated}` },
  );
  t.same(listed.body.objects, ['doc:b'], 'enumeration omits what the agent lacks');
  const named = await check(delegated, ['doc:a'], { user: `user:${user.id}` });
  t.same(
    (named.body.results as { allowed: boolean }[]).map((r) => r.allowed),
    [false],
    'naming the user keeps the agent half',
  );
  t.equal((await check(delegated, ['doc:a'], { user: 'user:someone-else' })).status, 403, 'another subject is refused');
});

t.test('audience binding: {url} tokens work on REST only, {url}/mcp tokens at /mcp only', async (t) => {
  const forApi = (await exchange()).body.access_token as string;
  const forMcp = (await exchange({ resource: `${base}/mcp` })).body.access_token as string;
  const atMcp = (bearer: string) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${bearer}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  t.equal((await atMcp(forApi)).status, 401, 'an API-bound delegated token at /mcp');
  t.equal((await check(forMcp, ['doc:b'])).status, 401, 'an MCP-bound delegated token on REST');

  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${forMcp}` } },
    }),
  );
  t.teardown(() => client.close());
  const result = await client.callTool({
    name: 'check_permissions',
    arguments: { checks: ['doc:a', 'doc:b', 'doc:c'].map((object) => ({ relation: 'viewer', object })) },
  });
  t.same(
    (result.structuredContent as { results: { allowed: boolean }[] }).results.map((r) => r.allowed),
    [false, true, false],
    'the intersection at /mcp too',
  );
});

t.test('malformed exchanges are RFC 6749 errors and issue nothing', async (t) => {
  const cases: [string, Promise<{ status: number; body: Record<string, unknown> }>, string, number][] = [
    [
      'wrong subject token type',
      exchange({ subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }),
      'invalid_request',
      400,
    ],
    ['missing actor token', exchange({ actor_token: '' }), 'invalid_request', 400],
    ['garbage subject token', exchange({ subject_token: 'not-a-token' }), 'invalid_grant', 400],
    ['an actor token of another client', exchange({ actor_token: await actorToken(other) }), 'invalid_grant', 400],
    ['a resource elsewhere', exchange({ resource: 'https://api.elsewhere.example' }), 'invalid_target', 400],
    ['a scope the user does not hold', exchange({ scope: 'openid admin' }), 'invalid_scope', 400],
    ['a wrong client secret', exchange({ client_secret: 'wrong' }), 'invalid_client', 401],
  ];
  for (const [name, pending, error, status] of cases) {
    const res = await pending;
    t.equal(res.status, status, `${name}: ${JSON.stringify(res.body)}`);
    t.equal(res.body.error, error, name);
    t.notOk(res.body.access_token, `${name}: nothing issued`);
  }
  const delegated = (await exchange()).body.access_token as string;
  const again = await exchange({ subject_token: delegated });
  t.equal(again.body.error, 'invalid_grant', 'a delegated token cannot be exchanged again');
});

t.test('without type agent in the model a delegated check is denied; the token ends with the session', async (t) => {
  const delegated = (await exchange()).body.access_token as string;
  await admin('fga/model', {
    dsl: 'model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]\n',
  });
  const denied = await check(delegated, ['doc:a', 'doc:b']);
  t.same(
    (denied.body.results as { allowed: boolean }[]).map((r) => r.allowed),
    [false, false],
    'denied without type agent',
  );
  const logout = await post('/v1/logout', {}, { authorization: `Bearer ${user.token}` });
  t.equal(logout.status, 200);
  t.equal((await check(delegated, ['doc:a'])).status, 401, 'the delegated token died with the session');
});
