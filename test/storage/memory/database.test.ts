import t, { type Test } from 'tap';
import { Config } from '../../../core/config.js';
import type { Storage } from '../../../core/storage.js';
import { openMemoryStore, openStorage } from '../../../storage/index.js';
import { DatabaseMemoryStore } from '../../../storage/memory/database.js';
import { REPLACEMENT_CHECK_MS } from '../../../storage/sqlite-change-stamp.js';
import { MEMORY_TABLE } from '../../../storage/entities/memory-entry.js';
import { databaseTargets, sqliteTarget } from '../../helpers/databases.js';
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
  // The -shm file unlinked under a running server (this process's connection
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

/**
 * A SQLite file of its own: the files of `targets` are shared with the test above, which
 * replaces a -shm file under an open connection (after that, this process's SQLite keeps
 * writing the old one, which no new change stamp reads).
 */
async function freshSqlite(t: Test): Promise<Storage> {
  const target = await sqliteTarget();
  const storage = await openStorage(new Config({ ...target.flags, 'memory-store': 'database' }), []);
  t.teardown(async () => {
    await storage.close();
    await target.dispose();
  });
  return storage;
}

/** A database memory store on a SQLite file of its own (`freshSqlite`). */
async function freshStore(t: Test): Promise<{ storage: Storage; memory: DatabaseMemoryStore }> {
  const storage = await freshSqlite(t);
  const memory = new DatabaseMemoryStore(storage);
  t.teardown(() => memory.close());
  return { storage, memory };
}

/** Counts the memory store's reads that reach SQLite (kept statements, `get`). */
function countReads(storage: Storage): { readonly n: number } {
  const statements = storage.statements as {
    run: (sql: string, values: unknown[], method: string, options?: unknown) => Promise<unknown>;
  };
  const run = statements.run.bind(statements);
  const counter = { n: 0 };
  statements.run = (sql, values, method, options) => {
    if (method === 'get') counter.n++;
    return run(sql, values, method, options);
  };
  return counter;
}

t.test("an own write that was the only commit drops only its key's kept read", async (t) => {
  const { storage, memory } = await freshStore(t);
  await memory.set('own:a', 'A', 60_000);
  await memory.set('own:b', 'B', 60_000);
  t.equal(await memory.get('own:a'), 'A');
  t.equal(await memory.get('own:b'), 'B');
  const reads = countReads(storage);
  t.equal(await memory.get('own:a'), 'A');
  t.equal(reads.n, 0, 'kept');
  await memory.set('own:c', 'C', 60_000);
  await memory.delete('own:b');
  t.equal(await memory.get('own:a'), 'A');
  t.equal(reads.n, 0, 'still kept after own writes of other keys');
  t.equal(await memory.get('own:b'), null, 'the deleted key is read again');
  t.equal(reads.n, 1);
  t.equal(await memory.get('own:c'), 'C');
  // A commit by another connection (here: a raw statement on the ORM's connection, which this
  // store did not make) makes everything stale again.
  await storage.orm.em
    .getConnection()
    .execute(`update ${MEMORY_TABLE} set value = 'A2' where key = 'own:a'`, [], 'run');
  t.equal(await memory.get('own:a'), 'A2', 'a write that is not an own write of this store is seen');
});

t.test('own writes that waited together for the connection each still count as the only commit', async (t) => {
  const { storage, memory } = await freshStore(t);
  await memory.set('wait:a', 'A', 60_000);
  t.equal(await memory.get('wait:a'), 'A');
  const reads = countReads(storage);
  // The connection is held as an ORM query holds it (the FGA poll's, under a login load), and two
  // sessions are stored meanwhile: both wait for it, then run one after the other.
  const client = (
    storage.orm.em.getConnection() as unknown as {
      getKnex(): { client: { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> } };
    }
  ).getKnex().client;
  const held = await client.acquireConnection();
  const writes = Promise.all([memory.set('wait:b', 'B', 60_000), memory.set('wait:c', 'C', 60_000)]);
  await new Promise((r) => setTimeout(r, 20));
  await client.releaseConnection(held);
  await writes;
  t.equal(await memory.get('wait:a'), 'A');
  t.equal(
    reads.n,
    0,
    'the read of another key is still kept (the stamp was read where each statement ran, not around the wait)',
  );
  t.equal(await memory.get('wait:b'), 'B', 'the written keys are read again');
  t.equal(await memory.get('wait:c'), 'C');
});

/**
 * Starts `memory.get(key)` and holds it once it has read its row, before it files the read; runs
 * `during` (the write) meanwhile, then lets it finish. Returns what the held read answered.
 */
async function readOverlapping(
  memory: DatabaseMemoryStore,
  key: string,
  during: () => Promise<void>,
): Promise<string | null> {
  const store = memory as unknown as { liveRow(key: string): Promise<unknown> };
  const liveRow = store.liveRow.bind(store);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let read!: () => void;
  const readDone = new Promise<void>((resolve) => (read = resolve));
  store.liveRow = async (k) => {
    const row = await liveRow(k);
    read();
    await gate;
    return row;
  };
  const inFlight = memory.get(key);
  await readDone;
  store.liveRow = liveRow;
  await during();
  release();
  return inFlight;
}

t.test('a read in flight while an own write of its key runs is not kept', async (t) => {
  const { memory } = await freshStore(t);
  await memory.set('race:k', 'old', 60_000);
  const answered = await readOverlapping(memory, 'race:k', () => memory.set('race:k', 'new', 60_000));
  t.equal(answered, 'old', 'the read in flight answers what it read (it overlapped the write)');
  t.equal(await memory.get('race:k'), 'new', 'but it was not kept');
});

t.test('a read in flight while an own write of another key runs is kept', async (t) => {
  const { storage, memory } = await freshStore(t);
  await memory.set('race:x', 'X', 60_000);
  t.equal(await readOverlapping(memory, 'race:x', () => memory.set('race:y', 'Y', 60_000)), 'X');
  const reads = countReads(storage);
  t.equal(await memory.get('race:x'), 'X');
  t.equal(reads.n, 0, 'kept: the write was of another key');
});
