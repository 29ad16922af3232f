import t from 'tap';
import { Config } from '../../../core/config.js';
import type { Storage } from '../../../core/storage.js';
import { openMemoryStore, openStorage } from '../../../storage/index.js';
import { DatabaseMemoryStore } from '../../../storage/memory/database.js';
import { REPLACEMENT_CHECK_MS } from '../../../storage/sqlite-change-stamp.js';
import { databaseTargets } from '../../helpers/databases.js';
import { memoryStoreSuite } from './shared-suite.js';

const targets = await databaseTargets();
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`database memory store on ${target.name}`, async (t) => {
    const config = new Config({ ...target.flags, 'memory-store': 'database' });
    // Two storages = two connection pools on one database, like two server processes.
    const storages: Storage[] = [];
    const open = async () => {
      const storage = await openStorage(config, []);
      storages.push(storage);
      return openMemoryStore(config, storage);
    };
    t.teardown(async () => {
      for (const s of storages) await s.close();
    });
    memoryStoreSuite(t, { open, openPeer: open });
  });
}

t.test('values outlive a restart', async (t) => {
  const [sqlite] = targets;
  const config = new Config({ ...sqlite.flags, 'memory-store': 'database' });
  const first = await openStorage(config, []);
  const m1 = await openMemoryStore(config, first);
  await m1.set('durable', 'yes', 60_000);
  await m1.close();
  await first.close();
  const second = await openStorage(config, []);
  t.teardown(() => second.close());
  const m2 = await openMemoryStore(config, second);
  t.equal(await m2.get('durable'), 'yes');
  t.equal(m2.backend, 'database');
});

t.test('a read kept in process ends with its row: expiry is checked at every use', async (t) => {
  const [sqlite] = targets;
  const storage = await openStorage(new Config({ ...sqlite.flags, 'memory-store': 'database' }), []);
  t.teardown(() => storage.close());
  let clock = 1_000_000;
  const memory = new DatabaseMemoryStore(storage, { now: () => clock });
  t.teardown(() => memory.close());
  await memory.set('short', 'lived', 1_000);
  t.equal(await memory.get('short'), 'lived');
  clock += 999;
  t.equal(await memory.get('short'), 'lived', 'still live 1 ms before its end');
  clock += 1;
  t.equal(await memory.get('short'), null, 'gone at its end, with nothing committed meanwhile');
  t.equal(await memory.get('never'), null);
  await memory.set('never', 'now', 1_000);
  t.equal(await memory.get('never'), 'now', 'a key read as missing is read anew once written');
});

t.test("this process's own writes end its kept reads, even when the -shm file it read was replaced", async (t) => {
  const [sqlite] = targets;
  const storage = await openStorage(new Config({ ...sqlite.flags, 'memory-store': 'database' }), []);
  t.teardown(() => storage.close());
  const memory = new DatabaseMemoryStore(storage);
  t.teardown(() => memory.close());
  t.ok(storage.changeStamp, 'a SQLite file in WAL mode has a change stamp');
  await memory.set('session:own', 'live', 60_000);
  t.equal(await memory.get('session:own'), 'live');
  await memory.delete('session:own');
  t.equal(await memory.get('session:own'), null, 'a delete here is seen here at once');
  await memory.set('session:own', 'again', 60_000);
  t.equal(await memory.get('session:own'), 'again');
  // The review's case: the -shm file unlinked under a running server (this process's connection
  // keeps writing the old one, whose header nobody reads any more).
  const shm = `${String(sqlite.flags['database-url'])}-shm`;
  const { unlink, writeFile, readFile } = await import('node:fs/promises');
  const bytes = await readFile(shm);
  await unlink(shm);
  await writeFile(shm, bytes);
  // The path is looked at again every REPLACEMENT_CHECK_MS (storage/sqlite-change-stamp.ts).
  await new Promise((resolve) => setTimeout(resolve, REPLACEMENT_CHECK_MS + 20));
  t.equal(storage.changeStamp!.current(), undefined, 'the stamp cannot tell any more');
  await memory.delete('session:own');
  t.equal(await memory.get('session:own'), null, 'the logout here is seen here');
});
