/**
 * The change stamp of a SQLite file (storage/sqlite-change-stamp.ts): the same while nothing is
 * committed, whatever reads happen; different after a commit by another connection of this
 * process or by another process; "cannot tell" without a wal-index; a file made anew is new.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { SqliteChangeStamp } from '../../storage/sqlite-change-stamp.js';

interface Db {
  exec(sql: string): void;
  prepare(sql: string): { run(params: unknown[]): unknown; get(params: unknown[]): unknown };
  close(): void;
}
const require = createRequire(import.meta.url);
const Database = require('libsql') as new (path: string) => Db;

const dir = await mkdtemp(join(tmpdir(), 'latchkey-stamp-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

function inOtherProcess(path: string, sql: string): Promise<void> {
  const source = `const D = require('libsql'); const d = new D(${JSON.stringify(path)}); d.prepare(${JSON.stringify(sql)}).run([]); d.close();`;
  return new Promise((resolve, reject) => execFile(process.execPath, ['-e', source], { cwd: process.cwd(), timeout: 30_000 }, (err) => (err ? reject(err) : resolve())));
}

t.test('same while nothing is committed, new after each commit, by this process or another', async (t) => {
  const path = join(dir, 'a.db');
  const mine = new Database(path);
  mine.exec('pragma journal_mode = wal');
  mine.exec('create table m (k text primary key, v text)');
  const other = new Database(path);
  t.teardown(() => {
    mine.close();
    other.close();
  });
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

t.test('a -shm file made anew in place of the one read is a change', async (t) => {
  const path = join(dir, 'c.db');
  const first = new Database(path);
  first.exec('pragma journal_mode = wal');
  first.exec('create table m (k text)');
  const stamp = new SqliteChangeStamp(path);
  const before = stamp.current();
  t.type(before, 'number');
  // The same header bytes in a new file (another inode): what is read no longer comes from the
  // file SQLite writes, so it must not count as unchanged.
  const { readFile, rename } = await import('node:fs/promises');
  const bytes = await readFile(`${path}-shm`);
  await writeFile(`${path}-shm.new`, bytes);
  await rename(`${path}-shm.new`, `${path}-shm`);
  t.not(stamp.current(), before, 'a new file is a new stamp');
  first.close();
});
