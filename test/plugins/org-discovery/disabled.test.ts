/** Discovery off (the default): the route is a 404 and Meta says false. */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

t.test('discovery off: 404 and Meta false', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const res = await fetch(`${server.url}/api/v1/org-discovery?email=a@b.example`);
  t.equal(res.status, 404);
  const meta = (await (await fetch(`${server.url}/v1/meta`)).json()) as Record<string, unknown>;
  t.equal(meta.is_org_discovery_enabled, false);
});
