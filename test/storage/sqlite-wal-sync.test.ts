/**
 * Relaxed writes on a SQLite file (storage/sqlite-wal-sync.ts): committed without waiting for
 * the disk, on a connection that is back to `synchronous = FULL` right after, and covered by one
 * flush of the write-ahead log within RELAXED_SYNC_MS or at close. Only the memory store's `set`
 * asks for it.
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { Config } from '../../core/config.js';
import type { Storage } from '../../core/storage.js';
import { openStorage } from '../../storage/index.js';
import { DatabaseMemoryStore } from '../../storage/memory/database.js';
import { RELAXED_SYNC_MS, WalSync } from '../../storage/sqlite-wal-sync.js';
import { databaseTargets } from '../helpers/databases.js';

const targets = await databaseTargets();
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));
const sqlite = targets.find((d) => d.name === 'sqlite');
if (!sqlite) throw new Error('SQLite is always available');

const walSyncOf = (storage: Storage) => (storage as unknown as { walSync: WalSync | undefined }).walSync;
const synchronous = async (storage: Storage) =>
  Number((await storage.statements.run('pragma synchronous', [], 'get'))?.synchronous);
const FULL = 2;

t.test('a relaxed write commits at once, leaves the connection FULL, and is flushed within the second', async (t) => {
  const storage = await openStorage(new Config({ ...sqlite.flags }), []);
  t.teardown(() => storage.close());
  const sync = walSyncOf(storage);
  if (!sync) throw new Error('a SQLite file in WAL mode has a WAL sync');
  await storage.orm.em
    .getConnection()
    .execute('create table lk_relaxed_probe (k varchar(20) primary key, v varchar(20))');
  t.equal(await synchronous(storage), FULL, 'FULL to begin with');
  await storage.statements.run('insert into lk_relaxed_probe (k, v) values (?, ?)', ['a', 'one'], 'run', {
    relaxed: true,
  });
  t.equal(sync.unsynced, 1, 'one commit waits for the flush');
  t.equal(await synchronous(storage), FULL, 'the next statement runs FULL again');
  t.equal(
    (await storage.statements.run('select v from lk_relaxed_probe where k = ?', ['a'], 'get'))?.v,
    'one',
    'committed',
  );
  await storage.statements.run('insert into lk_relaxed_probe (k, v) values (?, ?)', ['b', 'two'], 'run');
  t.equal(sync.unsynced, 1, 'an ordinary write is not counted');
  await sleep(RELAXED_SYNC_MS + 300);
  t.equal(sync.unsynced, 0, 'flushed within the second');
  t.equal(sync.flushes, 1, 'by one fsync');
});

t.test('a relaxed write that fails leaves the connection FULL', async (t) => {
  const storage = await openStorage(new Config({ ...sqlite.flags }), []);
  t.teardown(() => storage.close());
  await t.rejects(storage.statements.run('insert into no_such_table (k) values (?)', ['a'], 'run', { relaxed: true }));
  t.equal(await synchronous(storage), FULL);
});

t.test('close flushes what is pending', async (t) => {
  const storage = await openStorage(new Config({ ...sqlite.flags }), []);
  const sync = walSyncOf(storage)!;
  const memory = new DatabaseMemoryStore(storage);
  await memory.set('session:u:1', 'v', 60_000);
  t.equal(sync.unsynced, 1, "the memory store's set is relaxed");
  await memory.delete('session:u:1');
  t.equal(sync.unsynced, 1, 'its delete is not');
  await memory.close();
  await storage.close();
  t.equal(sync.unsynced, 0);
  t.equal(sync.flushes, 1);
});

t.test('a flush that fails turns relaxed writes off', async (t) => {
  // A log path under a file: opening it fails with ENOTDIR, as an I/O error would fail the fsync.
  const sync = new WalSync('/dev/null/db-wal');
  t.ok(sync.available);
  sync.committed();
  await sync.flush();
  t.notOk(sync.available, 'writes asked to be relaxed commit FULL from now on');
  t.equal(sync.unsynced, 1, 'and the commit is still counted as not flushed');
  await sync.close();
});

t.test('no log file: nothing to flush, no error', async (t) => {
  const sync = new WalSync('/tmp/latchkey-no-such-database-wal');
  sync.committed();
  await sync.flush();
  t.ok(sync.available);
  t.equal(sync.unsynced, 0);
});
