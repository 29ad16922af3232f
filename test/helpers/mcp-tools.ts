/**
 * The MCP tool scenarios the MCP tests share: an FGA model where users and service accounts view
 * documents (the user views `doc:plan`, the service account `doc:runbook`), and what a connected
 * MCP SDK client must see of the tools with a user's token and with a service account's.
 */
import type { Test } from 'tap';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TEST_ADMIN_SECRET } from './server.js';

const MODEL =
  'model\n  schema 1.1\ntype user\ntype service_account\ntype doc\n  relations\n    define viewer: [user, service_account]\n';

/** Installs the model and lets the user view `doc:plan` and the service account `doc:runbook`. */
export async function seedDocuments(base: string, userId: string, serviceAccountId: string): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}/v1/admin/fga/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-admin-secret': TEST_ADMIN_SECRET, origin: base },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${path}: ${await res.text()}`);
  };
  await post('model', { dsl: MODEL });
  await post('tuples', {
    tuples: [
      { user: `user:${userId}`, relation: 'viewer', object: 'doc:plan' },
      { user: `service_account:${serviceAccountId}`, relation: 'viewer', object: 'doc:runbook' },
    ],
  });
}

/** `check_permissions` on two documents answers the first allowed and the second refused. */
async function expectChecks(t: Test, c: Client, allowed: string, refused: string): Promise<void> {
  const checked = await c.callTool({
    name: 'check_permissions',
    arguments: {
      checks: [
        { relation: 'viewer', object: allowed },
        { relation: 'viewer', object: refused },
      ],
    },
  });
  t.same(checked.structuredContent, {
    results: [
      { relation: 'viewer', object: allowed, allowed: true },
      { relation: 'viewer', object: refused, allowed: false },
    ],
  });
}

/**
 * With a user's token: the four tools are listed and answer (`profile` matching the user,
 * `doc:plan` allowed and `refused` not, only `doc:plan` listed). Returns the listed tools.
 */
export async function expectUserTools(
  t: Test,
  c: Client,
  expected: { profile: Record<string, unknown>; refused: string },
): Promise<Awaited<ReturnType<Client['listTools']>>['tools']> {
  const { tools } = await c.listTools();
  t.same(tools.map((x) => x.name).sort(), ['check_permissions', 'list_permissions', 'meta', 'profile']);
  const meta = await c.callTool({ name: 'meta', arguments: {} });
  t.match(meta.structuredContent, { is_basic_authentication_enabled: true });
  const profile = await c.callTool({ name: 'profile', arguments: {} });
  t.match(profile.structuredContent, expected.profile);
  await expectChecks(t, c, 'doc:plan', expected.refused);
  const listed = await c.callTool({ name: 'list_permissions', arguments: { relation: 'viewer', object_type: 'doc' } });
  t.match(listed.structuredContent, { objects: ['doc:plan'] });
  return tools;
}

/** With a service account's token: its own checks answer (`doc:runbook` yes, `doc:plan` no); `profile` is a tool error. */
export async function expectServiceAccountTools(t: Test, c: Client): Promise<void> {
  await expectChecks(t, c, 'doc:runbook', 'doc:plan');
  const profile = await c.callTool({ name: 'profile', arguments: {} });
  t.equal(profile.isError, true, 'a service account has no profile');
  t.match(profile.content, [{ type: 'text', text: /^Unauthenticated: / }]);
}
