/**
 * ping() is false, quickly and without throwing, when a server database stops answering:
 * the storage is booted through a TCP relay which is then shut down.
 */
import t from 'tap';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Config } from '../../core/config.js';
import { openStorage } from '../../storage/index.js';
import { databaseTargets } from '../helpers/databases.js';

const targets = await databaseTargets({ only: ['postgres', 'mariadb', 'mysql'] });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

async function relay(host: string, port: number): Promise<{ port: number; cut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    cut: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

if (targets.length === 0) t.pass('no server database reachable: nothing to relay');

for (const target of targets) {
  t.test(`${target.name}: ping turns false when the server goes away`, async (t) => {
    const url = new URL(target.flags['database-url']);
    const r = await relay(url.hostname, Number(url.port));
    url.port = String(r.port);
    const storage = await openStorage(new Config({ ...target.flags, 'database-url': url.toString() }), []);
    t.teardown(() => storage.close());
    t.equal(await storage.ping(), true, 'answers through the relay');
    await r.cut();
    const started = Date.now();
    t.equal(await storage.ping(), false, 'unreachable');
    t.ok(Date.now() - started < 3_000, `gave up within the ping timeout (${Date.now() - started} ms)`);
  });
}
