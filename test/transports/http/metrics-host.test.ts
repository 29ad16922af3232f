/**
 * `--metrics-host` is the address the metrics listener binds: with 127.0.0.2 the metrics answer
 * there and nothing listens on 127.0.0.1 at that port; the main port never serves /metrics.
 */
import t from 'tap';
import { freePort } from '../../helpers/ports.js';
import { startTestServer } from '../../helpers/server.js';

t.test('the metrics listener binds --metrics-host', async (t) => {
  const port = await freePort();
  const server = await startTestServer({ flags: { 'metrics-host': '127.0.0.2', 'metrics-port': port } });
  t.teardown(() => server.close());
  const metrics = await fetch(`http://127.0.0.2:${port}/metrics`);
  t.equal(metrics.status, 200);
  t.match(await metrics.text(), /^# (HELP|TYPE) /m, 'text metrics');
  await t.rejects(fetch(`http://127.0.0.1:${port}/metrics`), 'nothing on 127.0.0.1 at that port');
  t.equal((await fetch(`${server.url}/metrics`)).status, 404, 'not on the main port');
});
