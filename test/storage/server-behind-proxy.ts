/**
 * A test server whose main database is reached through a fault proxy, so a test can refuse or
 * stall the database under the running server. Everything started is closed at the test's end.
 */
import type { Test } from 'tap';
import type { DbTarget } from '../helpers/databases.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { startTestServer } from '../helpers/server.js';

export async function serverBehindProxy(t: Test, target: DbTarget) {
  t.teardown(() => target.dispose());
  const url = new URL(target.flags['database-url']);
  const proxy = await FaultProxy.start(url.hostname, Number(url.port));
  t.teardown(() => proxy.close());
  url.host = proxy.address;
  const server = await startTestServer({
    database: { ...target, flags: { ...target.flags, 'database-url': url.toString() } },
  });
  t.teardown(() => server.close());
  return { proxy, server };
}
