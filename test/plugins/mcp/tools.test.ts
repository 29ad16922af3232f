/**
 * The MCP tool server end to end with the MCP SDK's own client: the 401 challenge and the
 * protected resource metadata, tokens for other audiences refused at /mcp and MCP tokens refused
 * elsewhere, and every tool listed and called with a user's token (authorization code + PKCE with
 * `resource={url}/mcp`) and with a service account's client-credentials token.
 */
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SESSION_COOKIE } from '../../../plugins/sessions/index.js';
import { expectServiceAccountTools, expectUserTools, seedDocuments } from '../../helpers/mcp-tools.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

const server = await startTestServer({ flags: { 'mcp-enabled': true, 'app-cookie-secure': false } });
t.teardown(() => server.close());
const base = server.url;
const mcpUrl = `${base}/mcp`;
const kernel = server.kernel;

const admin = async (op: string, body: unknown) => {
  const res = await fetch(`${base}/v1/admin/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-admin-secret': TEST_ADMIN_SECRET, origin: base },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${op}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

const redirectUri = 'http://localhost:5555/callback';
let client: { id: string; secret: string };
let user: { id: string };

t.before(async () => {
  const created = await admin('create_client', {
    name: 'Agent',
    allowed_scopes: ['openid', 'email', 'profile'],
    redirect_uris: [redirectUri],
  });
  client = { id: (created.client as { client_id: string }).client_id, secret: created.client_secret as string };

  const signup = await fetch(`${base}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({
      email: 'agent-owner@example.com',
      password: 'correct-horse-1',
      confirm_password: 'correct-horse-1',
      given_name: 'Grace',
    }),
  });
  user = ((await signup.json()) as { user: { id: string } }).user;
  await seedDocuments(base, user.id, client.id);
});

/** Authorization code + PKCE with `resource={url}/mcp` from a signed-in browser. */
async function userMcpToken(resource = mcpUrl): Promise<string> {
  const sessions = kernel.service('sessions');
  const session = await sessions.create({ userId: user.id, roles: ['user'], scopes: ['openid'], amr: ['pwd'] });
  const cookie = `${SESSION_COOKIE}=${encodeURIComponent(sessions.cookieValue(session))}`;
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${base}/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: client.id,
    redirect_uri: redirectUri,
    scope: 'openid profile',
    state: 'st-1',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource,
  }))
    authorize.searchParams.set(k, v);
  const res = await fetch(authorize, { redirect: 'manual', headers: { cookie } });
  const location = new URL(res.headers.get('location') ?? '', base);
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code: ${res.status} ${location}`);
  const token = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: client.id,
      client_secret: client.secret,
      code_verifier: verifier,
      resource,
    }),
  });
  const body = (await token.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

async function serviceMcpToken(): Promise<string> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.id,
      client_secret: client.secret,
      scope: 'openid',
      resource: mcpUrl,
    }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

async function connect(token: string): Promise<Client> {
  const c = new Client({ name: 'latchkey-test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return c;
}

const rpc = (headers: Record<string, string>) =>
  fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

t.test('without a token: 401 naming the protected resource metadata, which describes /mcp', async (t) => {
  const res = await rpc({});
  t.equal(res.status, 401);
  t.equal(
    res.headers.get('www-authenticate'),
    `Bearer realm="service", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
  );
  const doc = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<
    string,
    unknown
  >;
  t.match(doc, {
    resource: mcpUrl,
    authorization_servers: [base],
    bearer_methods_supported: ['header'],
    jwks_uri: `${base}/.well-known/jwks.json`,
  });
  t.equal((await fetch(mcpUrl)).status, 405, 'no server-initiated stream: GET is not allowed');
});

t.test('tokens for other audiences are refused at /mcp, and MCP tokens everywhere else', async (t) => {
  const login = await fetch(`${base}/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email: 'agent-owner@example.com', password: 'correct-horse-1' }),
  });
  const ordinary = ((await login.json()) as { access_token: string }).access_token;
  const refused = await rpc({ authorization: `Bearer ${ordinary}` });
  t.equal(refused.status, 401, 'an ordinary login token');
  t.match(refused.headers.get('www-authenticate'), /error="invalid_token"/);
  t.equal((await rpc({ authorization: 'Bearer not-a-jwt' })).status, 401, 'garbage');
  t.equal((await rpc({ authorization: `Bearer ${await userMcpToken(base)}` })).status, 401, 'a token for {url}');

  const mcpToken = await userMcpToken();
  const profile = await fetch(`${base}/v1/profile`, { headers: { authorization: `Bearer ${mcpToken}` } });
  t.equal(profile.status, 401, 'an MCP token on REST');
  const cookieOnly = await rpc({ cookie: `${SESSION_COOKIE}=x`, 'x-service-admin-secret': TEST_ADMIN_SECRET });
  t.equal(cookieOnly.status, 401, 'neither a cookie nor the admin secret counts at /mcp');
});

t.test('a user token: every tool listed and called, failures as tool results', async (t) => {
  const c = await connect(await userMcpToken());
  t.teardown(() => c.close());
  const tools = await expectUserTools(t, c, {
    profile: { id: user.id, email: 'agent-owner@example.com' },
    refused: 'doc:runbook',
  });
  const check = tools.find((x) => x.name === 'check_permissions');
  t.match(check?.inputSchema, { type: 'object', properties: { checks: { type: 'array' } } }, 'the REST request shape');

  const denied = await c.callTool({
    name: 'check_permissions',
    arguments: { checks: [{ relation: 'viewer', object: 'doc:plan' }], user: 'user:someone-else' },
  });
  t.equal(denied.isError, true, 'naming another subject is a tool error');
  t.match(denied.content, [{ type: 'text', text: /^PermissionDenied: / }]);
  const bad = await c.callTool({ name: 'check_permissions', arguments: { checks: 'nope' } });
  t.equal(bad.isError, true, 'a malformed input is a tool error, not a protocol abort');
  t.match(bad.content, [{ type: 'text', text: /^InvalidArgument: / }]);
});

t.test('a client-credentials token stands for the service account', async (t) => {
  const c = await connect(await serviceMcpToken());
  t.teardown(() => c.close());
  await expectServiceAccountTools(t, c);
});

t.test('with --mcp-enabled off, /mcp and its metadata do not exist', async (t) => {
  const off = await startTestServer({});
  t.teardown(() => off.close());
  t.equal((await fetch(`${off.url}/mcp`, { method: 'POST', headers: { origin: off.url } })).status, 404);
  t.equal((await fetch(`${off.url}/.well-known/oauth-protected-resource/mcp`)).status, 404);
});
