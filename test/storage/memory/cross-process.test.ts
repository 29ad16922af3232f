/**
 * The database memory store is atomic across processes sharing one database:
 * a worker process and this one increment one counter and both try to consume one value. And a
 * read kept in this process (on SQLite files, storage/memory/database.ts `get`) never outlives a
 * write made by another process.
 */
import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Config } from '../../../core/config.js';
import { openMemoryStore, openStorage } from '../../../storage/index.js';
import type { MemoryStore } from '../../../core/memory-store.js';
import { databaseTargets, type DbTarget } from '../../helpers/databases.js';

const worker = fileURLToPath(new URL('./fixtures/increment-worker.ts', import.meta.url));
const writer = fileURLToPath(new URL('./fixtures/write-worker.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));

function runWorker(
  flags: Record<string, string>,
  key: string,
  times: number,
): Promise<{ seen: number[]; consumed: string | null }> {
  return new Promise((resolve, reject) => {
    execFile(tsx, [worker, JSON.stringify(flags), key, String(times)], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as { seen: number[]; consumed: string | null });
    });
  });
}

/** Sets `key` to `value` (deletes it without one) from another process. */
function writeFromWorker(flags: Record<string, string>, key: string, value?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      tsx,
      [writer, JSON.stringify(flags), key, ...(value === undefined ? [] : [value])],
      { timeout: 60_000 },
      (err, _stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve();
      },
    );
  });
}

const targets = await databaseTargets({ sqlOnly: true });

/** The database memory store on `target` in this process, closed at the end of the test. */
async function openOn(t: Test, target: DbTarget): Promise<{ flags: Record<string, string>; memory: MemoryStore }> {
  const flags = { ...target.flags, 'memory-store': 'database' } as Record<string, string>;
  const config = new Config(flags);
  const storage = await openStorage(config, []);
  const memory = await openMemoryStore(config, storage);
  t.teardown(async () => {
    await memory.close();
    await storage.close();
  });
  return { flags, memory };
}
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: two processes, one counter, one consumable value`, async (t) => {
    const { flags, memory } = await openOn(t, target);
    await memory.set('xp:once', 'prize', 60_000);
    const [other, mine, myConsume] = await Promise.all([
      runWorker(flags, 'xp', 60),
      Promise.all(Array.from({ length: 60 }, () => memory.increment('xp', 60_000))),
      memory.consume('xp:once'),
    ]);
    const all = [...other.seen, ...mine].sort((x, y) => x - y);
    t.same(
      all,
      Array.from({ length: 120 }, (_, i) => i + 1),
      'every value 1..120 seen exactly once',
    );
    t.equal(await memory.get('xp'), '120');
    t.same(
      [other.consumed, myConsume].filter((v) => v !== null),
      ['prize'],
      'exactly one process consumed the value',
    );
  });
}

for (const target of targets) {
  t.test(`${target.name}: a value read here, then changed or deleted by another process, is read anew`, async (t) => {
    const { flags, memory } = await openOn(t, target);
    await memory.set('session:u:1', 'live', 60_000);
    for (let i = 0; i < 3; i++) t.equal(await memory.get('session:u:1'), 'live', `read ${i + 1}`);
    await writeFromWorker(flags, 'session:u:1');
    t.equal(await memory.get('session:u:1'), null, 'deleted by the other process (a logout there)');
    t.equal(await memory.get('session:u:1'), null);
    await writeFromWorker(flags, 'session:u:1', 'again');
    t.equal(await memory.get('session:u:1'), 'again', 'set by the other process');
    await writeFromWorker(flags, 'session:u:other', 'x');
    t.equal(await memory.get('session:u:1'), 'again', 'a write of another key changes nothing read here');
  });
}
