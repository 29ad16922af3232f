/**
 * FGA off (a main database that is not one of the SQL types FGA reuses, here libSQL, and no
 * --fga-store): the permission calls answer 400 `failed_precondition` over REST and a
 * `FailedPrecondition` tool error over MCP, where the rest of the server works as usual.
 */
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { accessToken, createAgentClient } from '../../helpers/delegation.js';
import { postJson } from '../../helpers/post-json.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

t.test('FGA off: REST failed_precondition, MCP FailedPrecondition', async (t) => {
  const server = await startTestServer({ flags: { 'database-type': 'libsql', 'mcp-enabled': true } });
  t.teardown(() => server.close());
  const base = server.url;

  const password = 'Fga-off-pass-1';
  const signup = await postJson(base, '/v1/signup', { email: 'off@example.com', password, confirm_password: password });
  t.equal(signup.status, 200, 'signup works without FGA');
  const { access_token: token } = (await signup.json()) as { access_token: string };

  const check = await postJson(
    base,
    '/v1/check_permissions',
    { checks: [{ relation: 'viewer', object: 'doc:1' }] },
    token,
  );
  t.equal(check.status, 400);
  t.match(await check.json(), { code: 'failed_precondition', message: String });
  const list = await postJson(base, '/v1/list_permissions', {}, token);
  t.equal(list.status, 400);
  t.match(await list.json(), { code: 'failed_precondition' });
  const model = await fetch(`${base}/v1/admin/fga/model`, { headers: { 'x-service-admin-secret': TEST_ADMIN_SECRET } });
  t.equal(model.status, 400);
  t.match(await model.json(), { code: 'failed_precondition' });

  const agent = await createAgentClient(base, TEST_ADMIN_SECRET);
  t.type(agent.id, 'string', 'an agent client is registered without FGA');
  const mcpToken = await accessToken(base, {
    grant_type: 'client_credentials',
    client_id: agent.id,
    client_secret: agent.secret,
    scope: 'openid',
    resource: `${base}/mcp`,
  });
  t.type(mcpToken, 'string', 'a service-account token for /mcp');

  const c = new Client({ name: 'fga-off-test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${mcpToken}` } },
    }),
  );
  t.teardown(() => c.close());
  const checked = await c.callTool({
    name: 'check_permissions',
    arguments: { checks: [{ relation: 'viewer', object: 'doc:1' }] },
  });
  t.equal(checked.isError, true, 'a tool error, not a protocol abort');
  t.match(checked.content, [{ type: 'text', text: /^FailedPrecondition: / }]);
  const listed = await c.callTool({ name: 'list_permissions', arguments: {} });
  t.equal(listed.isError, true);
  t.match(listed.content, [{ type: 'text', text: /^FailedPrecondition: / }]);
  const meta = await c.callTool({ name: 'meta', arguments: {} });
  t.notOk(meta.isError, 'meta still answers');
});
