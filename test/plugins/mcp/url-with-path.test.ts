/**
 * With a `--url` that has a path and a trailing slash, the MCP resource is the scheme and host of
 * `--url` plus `/mcp` (path and trailing slash dropped): the protected resource metadata says so,
 * a client-credentials token asked for that resource carries it as `aud` (and `--url` unchanged
 * as `iss`), and /mcp accepts it.
 */
import t from 'tap';
import { accessToken, createAgentClient } from '../../helpers/delegation.js';
import { freePort } from '../../helpers/ports.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

t.test('the MCP audience drops the path of --url', async (t) => {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const url = `${origin}/auth/`;
  const server = await startTestServer({ flags: { 'http-port': port, url, 'mcp-enabled': true } });
  t.teardown(() => server.close());

  const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as {
    resource: string;
  };
  t.equal(metadata.resource, `${origin}/mcp`);

  const agent = await createAgentClient(origin, TEST_ADMIN_SECRET);
  const token = await accessToken(origin, {
    grant_type: 'client_credentials',
    client_id: agent.id,
    client_secret: agent.secret,
    scope: 'openid',
    resource: `${origin}/mcp`,
  });
  t.type(token, 'string', 'the token endpoint answers a token for the resource');
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { aud: string; iss: string };
  t.equal(claims.aud, `${origin}/mcp`);
  t.equal(claims.iss, url, 'iss is the value of --url');

  const listed = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  t.equal(listed.status, 200, '/mcp accepts it');
  await listed.arrayBuffer();
});
