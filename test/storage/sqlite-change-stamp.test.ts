/**
 * The change stamp of a SQLite file (storage/sqlite-change-stamp.ts): the same while nothing is
 * committed, whatever reads happen; different after a commit by another connection of this
 * process, by another process, or noted by this process's writers; "cannot tell" without a
 * wal-index, and for good once the file read was deleted or replaced.
 */
import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { REPLACEMENT_CHECK_MS, SqliteChangeStamp } from '../../storage/sqlite-change-stamp.js';

interface Db {
  exec(sql: string): void;
  prepare(sql: string): { run(params: unknown[]): unknown; get(params: unknown[]): unknown };
  close(): void;
}
const require = createRequire(import.meta.url);
const Database = require('libsql') as new (path: string) => Db;

const dir = await mkdtemp(join(tmpdir(), 'latchkey-stamp-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

/** A new database file in WAL mode with a table `m (k, v)`, closed at the end of the test. */
function walDatabase(t: Test, name: string): { path: string; db: Db } {
  const path = join(dir, name);
  const db = new Database(path);
  db.exec('pragma journal_mode = wal');
  db.exec('create table m (k text primary key, v text)');
  t.teardown(() => db.close());
  return { path, db };
}

function inOtherProcess(path: string, sql: string): Promise<void> {
  const source = `const D = require('libsql'); const d = new D(${JSON.stringify(path)}); d.prepare(${JSON.stringify(sql)}).run([]); d.close();`;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['-e', source], { cwd: process.cwd(), timeout: 30_000 }, (err) =>
      err ? reject(err) : resolve(),
    ),
  );
}

t.test('same while nothing is committed, new after each commit, by this process or another', async (t) => {
  const { path, db: mine } = walDatabase(t, 'a.db');
  const other = new Database(path);
  t.teardown(() => other.close());
  const stamp = new SqliteChangeStamp(path);
  const first = stamp.current();
  t.type(first, 'number');
  mine.prepare('select * from m').get([]);
  t.equal(stamp.current(), first, 'a read changes nothing');
  mine.prepare("update m set v = 'x' where k = 'none'").run([]);
  t.equal(stamp.current(), first, 'a write that changed no row changes nothing');
  other.prepare("insert into m values ('a', '1')").run([]);
  const second = stamp.current();
  t.not(second, first, "another connection's commit");
  t.equal(stamp.current(), second);
  await inOtherProcess(path, "update m set v = '2' where k = 'a'");
  const third = stamp.current();
  t.not(third, second, "another process's commit");
  mine.exec('pragma wal_checkpoint(TRUNCATE)');
  const fourth = stamp.current();
  other.prepare("update m set v = '3' where k = 'a'").run([]);
  t.not(stamp.current(), fourth, 'a commit after the WAL was reset');
  stamp.release();
  t.type(stamp.current(), 'number', 'opens the file again after release');
});

t.test('cannot tell without a wal-index, or from a file in another format', async (t) => {
  t.equal(new SqliteChangeStamp(join(dir, 'missing.db')).current(), undefined, 'no -shm file');
  const path = join(dir, 'b.db');
  await writeFile(`${path}-shm`, Buffer.alloc(200, 7));
  t.equal(new SqliteChangeStamp(path).current(), undefined, 'not a wal-index header');
  await writeFile(`${path}-shm`, Buffer.alloc(10));
  t.equal(new SqliteChangeStamp(path).current(), undefined, 'too short');
});

t.test('a -shm file deleted or made anew after it was read: cannot tell, for good', async (t) => {
  const { path, db: first } = walDatabase(t, 'c.db');
  // 0: the path is looked at on every call (the default looks every REPLACEMENT_CHECK_MS; next test).
  const stamp = new SqliteChangeStamp(path, 0);
  t.type(stamp.current(), 'number');
  // The same header bytes in a new file (another inode): this process's connection may still
  // write the old, unlinked one, whose header nobody reads any more.
  const { readFile, rename, unlink } = await import('node:fs/promises');
  const bytes = await readFile(`${path}-shm`);
  await writeFile(`${path}-shm.new`, bytes);
  await rename(`${path}-shm.new`, `${path}-shm`);
  t.equal(stamp.current(), undefined, 'a new file');
  first.prepare('insert into m values (?, ?)').run(['x', 'y']);
  t.equal(stamp.current(), undefined, 'still, after commits');
  const other = new SqliteChangeStamp(path, 0);
  t.type(other.current(), 'number', 'a stamp that never saw the old file reads the new one');
  await unlink(`${path}-shm`);
  t.equal(other.current(), undefined, 'a deleted file');
  await writeFile(`${path}-shm`, bytes);
  t.equal(other.current(), undefined, 'and one made again after it');
});

t.test(
  'by default the path is looked at again once REPLACEMENT_CHECK_MS have passed, the header on every call',
  async (t) => {
    const { path, db } = walDatabase(t, 'e.db');
    const stamp = new SqliteChangeStamp(path);
    const first = stamp.current();
    t.type(first, 'number');
    const { readFile, rename } = await import('node:fs/promises');
    const bytes = await readFile(`${path}-shm`);
    // A commit is seen at once: the header is read on every call.
    db.prepare('insert into m values (?, ?)').run(['e1', 'v']);
    const afterCommit = stamp.current();
    t.type(afterCommit, 'number');
    t.not(afterCommit, first, 'a commit gives a new stamp on the next call');
    await writeFile(`${path}-shm.new`, bytes);
    await rename(`${path}-shm.new`, `${path}-shm`);
    await new Promise((resolve) => setTimeout(resolve, REPLACEMENT_CHECK_MS + 20));
    t.equal(stamp.current(), undefined, 'the replacement is seen once the interval has passed');
  },
);

t.test('callers that ask before a shared read share it; the read comes after every one of them', async (t) => {
  const { path, db } = walDatabase(t, 'f.db');
  const stamp = new SqliteChangeStamp(path);
  const first = stamp.shared();
  t.equal(stamp.shared(), first, 'a caller asking while a read is pending joins it');
  const a = await first;
  t.type(a, 'number');
  db.prepare('insert into m values (?, ?)').run(['f1', 'v']);
  const b = await stamp.shared();
  t.not(b, a, 'a caller after the read gets a read of its own, which sees the commit before it');
  const pending = stamp.shared();
  // Committed after the caller asked but before the shared read ran: the read still sees it.
  db.prepare('insert into m values (?, ?)').run(['f2', 'v']);
  t.not(await pending, b);
});

t.test('an own write that was the only commit leaves the stamp as it was and names its key', async (t) => {
  const { path, db } = walDatabase(t, 'g.db');
  const stamp = new SqliteChangeStamp(path);
  const told: string[] = [];
  const stop = stamp.onOwnWrite((key) => void told.push(key));
  const g = stamp.current();
  t.type(g, 'number');
  const insert = db.prepare('insert into m values (?, ?)');

  let mark = stamp.beforeOwnWrite();
  insert.run(['g1', 'v']);
  t.equal(stamp.afterOwnWrite(mark, 1, 'g1'), true, 'one commit, one changed row');
  t.same(told, ['g1'], 'the readers are told its key');
  t.equal(stamp.current(), g, 'and the stamp stays: other kept reads are still good');

  mark = stamp.beforeOwnWrite();
  t.equal(stamp.afterOwnWrite(mark, 0, 'g2'), true, 'no row changed and nothing committed');

  mark = stamp.beforeOwnWrite();
  insert.run(['g3', 'v']);
  insert.run(['g4', 'v']);
  t.equal(stamp.afterOwnWrite(mark, 1, 'g3'), false, 'two commits: another one besides ours');

  stamp.current();
  mark = stamp.beforeOwnWrite();
  insert.run(['g5', 'v']);
  t.equal(stamp.afterOwnWrite(mark, 0, 'g5'), false, "a commit while our statement changed nothing is somebody else's");

  stamp.current();
  insert.run(['g6', 'v']);
  t.equal(stamp.beforeOwnWrite(), undefined, 'a commit since the last look: no mark');
  t.equal(stamp.afterOwnWrite(undefined, 1, 'g7'), false);
  t.same(told, ['g1', 'g2'], 'only the writes that were the only commit were told');
  stop();
  stamp.current();
  mark = stamp.beforeOwnWrite();
  insert.run(['g8', 'v']);
  t.equal(stamp.afterOwnWrite(mark, 1, 'g8'), true);
  t.same(told, ['g1', 'g2'], 'a reader that stopped listening is not told');
});

t.test("this process's own commits count without reading the file", async (t) => {
  const { path } = walDatabase(t, 'd.db');
  const stamp = new SqliteChangeStamp(path);
  const before = stamp.current();
  stamp.noteWrite();
  const after = stamp.current();
  t.type(after, 'number');
  t.not(after, before, 'noteWrite alone gives a new stamp');
  t.equal(stamp.current(), after);
});
