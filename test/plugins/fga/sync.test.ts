/**
 * How nodes stay in step (README.md "What is cached, and how writes travel"): two kernels on the
 * same database, a write on one polled on the other until it shows, under a stated bound; and
 * the change log's pruning (at start and on a timer that kernel close stops), after which a
 * node that fell behind reloads a snapshot and still answers right.
 */
import t, { type Test } from 'tap';
import { Config } from '../../../core/config.js';
import { definePlugin } from '../../../core/plugin.js';
import { fgaPlugin } from '../../../plugins/fga/index.js';
import { FgaService, SYNC_INTERVAL_MS } from '../../../plugins/fga/service.js';
import { MemoryFgaStore } from '../../../plugins/fga/store/memory-store.js';
import { fgaEntities } from '../../../plugins/fga/store/sql-entities.js';
import { SqlFgaStore } from '../../../plugins/fga/store/sql-store.js';
import { openStorage } from '../../../storage/index.js';
import { databaseTarget, sqliteTarget, type DbTarget } from '../../helpers/databases.js';
import { bootTestKernel, testContext, type TestKernel } from '../../helpers/kernel.js';
import { GROUPS_MODEL } from './models.js';

const MODEL = `${GROUPS_MODEL}type doc
  relations
    define viewer: [user, group#member]
`;
/** One poll interval plus one indexed query, with room for a busy shared machine. */
const PROPAGATION_BOUND_MS = SYNC_INTERVAL_MS + 750;

const admin = definePlugin({
  name: 'test-admin',
  description: 'Every internal call is a super-admin.',
  setup: (ctx) => ctx.authenticate('admin', async () => ({ kind: 'admin', subject: 'admin:root' })),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two kernels on one database, closed with the test, the model installed from the first.
 * `secondMemory`: where the second keeps its sessions (the in-process store unless told).
 */
async function kernelsOn(t: Test, target: DbTarget, secondMemory?: 'database'): Promise<[TestKernel, TestKernel]> {
  const a = await bootTestKernel({ plugins: [fgaPlugin, admin], database: target });
  const b = await bootTestKernel({
    plugins: [fgaPlugin, admin],
    database: target,
    ...(secondMemory ? { memory: secondMemory } : {}),
  });
  t.teardown(async () => {
    await a.close();
    await b.close();
    await target.dispose();
  });
  await a.kernel.invoke('_fga_write_model', testContext(a.kernel), { dsl: MODEL });
  return [a, b];
}

/** Whether the node lets `user` view doc:1; false until it has seen the model. */
const viewsDoc =
  (node: TestKernel) =>
  (user: string): boolean => {
    try {
      return node.kernel.service('fga').check([{ user, relation: 'viewer', object: 'doc:1' }])[0];
    } catch {
      return false;
    }
  };

async function twoKernels(t: Test, target: DbTarget): Promise<void> {
  const [a, b] = await kernelsOn(t, target);
  const ask = viewsDoc(b);
  const waitOnB = async (want: boolean, user: string): Promise<number> => {
    const start = performance.now();
    while (ask(user) !== want) {
      if (performance.now() - start > 5000) throw new Error('node B never saw the change');
      await sleep(2);
    }
    return performance.now() - start;
  };
  const tuples = [
    { user: 'group:eng#member', relation: 'viewer', object: 'doc:1' },
    { user: 'user:anne', relation: 'member', object: 'group:eng' },
  ];
  await waitOnB(false, 'user:anne');
  await a.kernel.invoke('_fga_write_tuples', testContext(a.kernel), { tuples });
  t.equal(
    a.kernel.service('fga').check([{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }])[0],
    true,
    'the writing node sees its write at once',
  );
  const seen = await waitOnB(true, 'user:anne');
  t.ok(
    seen < PROPAGATION_BOUND_MS,
    `a write on A was visible on B after ${seen.toFixed(0)} ms (bound ${PROPAGATION_BOUND_MS} ms)`,
  );
  await a.kernel.invoke('_fga_delete_tuples', testContext(a.kernel), { tuples: [tuples[1]] });
  const gone = await waitOnB(false, 'user:anne');
  t.ok(gone < PROPAGATION_BOUND_MS, `a delete on A was visible on B after ${gone.toFixed(0)} ms`);
}

t.test('two kernels on one SQLite file', async (t) => twoKernels(t, await sqliteTarget()));

t.test('two kernels on one PostgreSQL database', async (t) => {
  const target = await databaseTarget('postgres');
  if (!target) {
    t.comment('PostgreSQL not reachable');
    return;
  }
  return twoKernels(t, target);
});

/** Two nodes without timers on one fresh SQLite store (each test syncs them by hand). */
async function twoNodesOnSqlite(t: Test): Promise<{ store: SqlFgaStore; writer: FgaService; other: FgaService }> {
  const target = await sqliteTarget();
  const storage = await openStorage(new Config(target.flags), fgaEntities);
  const store = await SqlFgaStore.open(storage, false);
  t.teardown(async () => {
    await storage.close();
    await target.dispose();
  });
  const writer = await FgaService.open(store, { syncIntervalMs: 0, pruneIntervalMs: 0 });
  const other = await FgaService.open(store, { syncIntervalMs: 0, pruneIntervalMs: 0 });
  return { store, writer, other };
}

t.test('the change log is pruned by age, keeping the newest entry; a node behind reloads', async (t) => {
  const { store, writer, other: behind } = await twoNodesOnSqlite(t);
  await writer.installModel(MODEL);
  await writer.writeTuples([{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }]);
  await writer.writeTuples([{ user: 'user:beth', relation: 'viewer', object: 'doc:1' }]);
  t.equal((await store.changesSince(0, 100))?.length, 3, 'three changes logged');
  t.equal(await writer.prune(), 0, 'nothing is older than the default retention (one hour)');
  t.equal(await store.pruneChanges(Date.now() + 1000), 2, 'with everything expired, all but the newest go');
  t.equal(await store.changesSince(0, 100), null, 'a node at 0 now sees a gap');
  t.same(
    (await store.changesSince(2, 100))?.map((c) => c.seq),
    [3],
    'the newest entry is kept',
  );
  await behind.sync();
  t.equal(behind.sequence, 3, 'the node behind reloaded a snapshot');
  t.same(
    behind.check([{ user: 'user:beth', relation: 'viewer', object: 'doc:1' }]),
    [true],
    'and answers with the pruned changes applied',
  );
});

t.test('pruning runs at start and on a timer, which close stops', async (t) => {
  const store = new MemoryFgaStore();
  let calls = 0;
  const prune = store.pruneChanges.bind(store);
  store.pruneChanges = (before) => {
    calls++;
    return prune(before);
  };
  const node = await FgaService.open(store, { changeRetentionMs: 0, pruneIntervalMs: 20 });
  t.equal(calls, 1, 'once at start');
  await node.installModel(MODEL);
  await node.writeTuples([{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }]);
  await sleep(120);
  t.ok(calls >= 3, `then on the timer (${calls} runs)`);
  t.equal(await store.changesSince(0, 100), null, 'the timer pruned the log');
  await node.close();
  const after = calls;
  await sleep(80);
  t.equal(calls, after, 'no pruning after close');
});

t.test('the kernel prunes at boot and stops the timer on close', async (t) => {
  const target = await sqliteTarget();
  const k = await bootTestKernel({ plugins: [fgaPlugin, admin], database: target });
  await k.kernel.invoke('_fga_write_model', testContext(k.kernel), { dsl: MODEL });
  await k.close();
  // Age the log past the retention, then boot again: the boot prunes.
  const storage = await openStorage(new Config(target.flags), fgaEntities);
  const store = await SqlFgaStore.open(storage, false);
  await storage.em().nativeUpdate('LatchkeyFgaChange', {}, { at: 0 });
  await store.installModel(MODEL);
  t.equal((await store.changesSince(0, 10))?.length, 2, 'two entries before the second boot');
  const again = await bootTestKernel({ plugins: [fgaPlugin, admin], database: target });
  t.equal(await store.changesSince(0, 10), null, 'the entry older than the retention went at boot');
  await again.close();
  await storage.close();
  await target.dispose();
});

t.test('a bulk import logs one reload change; other nodes reload a snapshot', async (t) => {
  const { store, writer, other } = await twoNodesOnSqlite(t);
  await writer.installModel(MODEL);
  await writer.writeTuples([{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }]);
  const many = Array.from({ length: 2500 }, (_, i) => ({
    user: `user:u${i}`,
    relation: 'member',
    object: `group:g${i % 7}`,
  }));
  await writer.importTuples([
    ...many,
    { user: 'user:anne', relation: 'viewer', object: 'doc:1' },
    { user: 'group:g3#member', relation: 'viewer', object: 'doc:2' },
  ]);
  t.equal(await store.countTuples(), 2502, 'every new tuple stored once, the existing one left alone');
  t.same(
    (await store.changesSince(2, 10))?.map((c) => c.op),
    ['reload'],
    'a single log entry for the import',
  );
  t.equal(writer.tupleCount, 2502, 'the importing node has them');
  await other.sync();
  t.equal(other.tupleCount, 2502, 'the other node reloaded');
  t.same(
    other.check([
      { user: 'user:u3', relation: 'viewer', object: 'doc:2' },
      { user: 'user:u4', relation: 'viewer', object: 'doc:2' },
    ]),
    [true, false],
  );
  await t.rejects(
    writer.importTuples([{ user: 'user:x', relation: 'nope', object: 'doc:1' }]),
    { code: 'invalid_argument' },
    'validated like writes',
  );
  await writer.close();
  await other.close();
});

t.test('the model in force is the last one installed, whatever the installing clocks say', async (t) => {
  const target = await sqliteTarget();
  const storage = await openStorage(new Config(target.flags), fgaEntities);
  // A node whose clock runs behind: each new model id sorts before the previous one.
  const ids = ['01999999-0000-7000-8000-000000000000', '01000000-0000-7000-8000-000000000000'];
  const store = await SqlFgaStore.open(storage, false, { modelId: () => ids.shift()! });
  t.teardown(async () => {
    await storage.close();
    await target.dispose();
  });
  const writer = await FgaService.open(store, { syncIntervalMs: 0, pruneIntervalMs: 0 });
  const replaying = await FgaService.open(store, { syncIntervalMs: 0, pruneIntervalMs: 0 });
  const first = MODEL;
  const second = `${MODEL}type extra\n`;
  await writer.installModel(first);
  await writer.installModel(second);
  await replaying.sync();
  t.equal((await replaying.getModel()).dsl, second, 'a node replaying the log');
  const fresh = await FgaService.open(store, { syncIntervalMs: 0, pruneIntervalMs: 0 });
  t.equal((await fresh.getModel()).dsl, second, 'a node starting from a snapshot');
  t.equal((await store.latestModel())?.dsl, second, 'the store itself');
  await Promise.all([writer.close(), replaying.close(), fresh.close()].map((p) => p.catch(() => {})));
});

/** Two nodes, each with its own connection, on one SQLite file (as two processes would be). */
async function twoConnectionsOnSqlite(t: Test): Promise<{
  stores: [SqlFgaStore, SqlFgaStore];
  nodes: [FgaService, FgaService];
  storage: Awaited<ReturnType<typeof openStorage>>;
}> {
  const target = await sqliteTarget();
  const first = await openStorage(new Config(target.flags), fgaEntities);
  const second = await openStorage(new Config(target.flags), fgaEntities);
  const stores: [SqlFgaStore, SqlFgaStore] = [
    await SqlFgaStore.open(first, false),
    await SqlFgaStore.open(second, false),
  ];
  const nodes: [FgaService, FgaService] = [
    await FgaService.open(stores[0], { syncIntervalMs: 0, pruneIntervalMs: 0 }),
    await FgaService.open(stores[1], { syncIntervalMs: 0, pruneIntervalMs: 0 }),
  ];
  t.teardown(async () => {
    await first.close();
    await second.close();
    await target.dispose();
  });
  return { stores, nodes, storage: first };
}

const NARROWER = MODEL.replace('define viewer: [user, group#member]', 'define viewer: [group#member]');

t.test(
  'a write validated against a model another node replaced before the write took the lock is validated again',
  async (t) => {
    const { store, writer, other } = await twoNodesOnSqlite(t);
    await writer.installModel(MODEL);
    await other.sync();
    const write = store.writeTuples.bind(store);
    let raced = false;
    store.writeTuples = async (writes, deletes, modelId) => {
      if (!raced) {
        raced = true;
        await writer.installModel(NARROWER); // lands between the other node's validation and its write
      }
      return write(writes, deletes, modelId);
    };
    await t.rejects(other.writeTuples([{ user: 'user:x', relation: 'viewer', object: 'doc:9' }]), {
      code: 'invalid_argument',
      message: /not an allowed user type/,
    });
    t.equal((await store.readTuples({ object: 'doc:9' }, 10)).tuples.length, 0, 'nothing was stored');
    await other.writeTuples([{ user: 'group:g#member', relation: 'viewer', object: 'doc:9' }]);
    t.equal((await store.readTuples({ object: 'doc:9' }, 10)).tuples.length, 1, 'what the new model admits is written');
  },
);

t.test(
  'the writing node sees its own write even when a pull that read the log before the commit is in flight',
  async (t) => {
    const { store, writer } = await twoNodesOnSqlite(t);
    await writer.installModel(MODEL);
    const changesSince = store.changesSince.bind(store);
    let slow = false;
    store.changesSince = async (seq, limit) => {
      const read = await changesSince(seq, limit);
      if (slow) {
        slow = false;
        await sleep(50); // delivered after the commit below
      }
      return read;
    };
    const write = store.writeTuples.bind(store);
    store.writeTuples = async (writes, deletes, modelId) => {
      slow = true;
      void writer.sync(); // a timer's pull, reading the log before this write commits
      await sleep(10);
      return write(writes, deletes, modelId);
    };
    await writer.writeTuples([{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }]);
    t.same(writer.check([{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }]), [true]);
  },
);

t.test('a hole in the middle of the change log makes a node reload instead of stepping over it', async (t) => {
  const { stores, nodes, storage } = await twoConnectionsOnSqlite(t);
  const [writer, behind] = nodes;
  await writer.installModel(MODEL);
  await behind.sync();
  for (const who of ['one', 'two', 'three'])
    await writer.writeTuples([{ user: `user:${who}`, relation: 'viewer', object: 'doc:1' }]);
  // The entry of `two` pruned by its (skewed) time while later ones stayed.
  await storage.orm.em.fork().getConnection().execute('delete from latchkey_fga_changes where _id = 3');
  t.equal(await stores[1].changesSince(1, 100), null, 'the log no longer reaches back without a gap');
  await behind.sync();
  t.same(
    behind.check(['one', 'two', 'three'].map((who) => ({ user: `user:${who}`, relation: 'viewer', object: 'doc:1' }))),
    [true, true, true],
    'the node reloaded and has all three',
  );
});

t.test('two nodes writing to one SQLite file at once: every write lands (SQLITE_BUSY is retried)', async (t) => {
  const { nodes } = await twoConnectionsOnSqlite(t);
  await nodes[0].installModel(MODEL);
  await nodes[1].sync();
  const writes = Array.from({ length: 40 }, (_, i) =>
    nodes[i % 2].writeTuples([{ user: `user:u${i}`, relation: 'viewer', object: 'doc:busy' }]).then(
      () => 'ok',
      (err: Error) => err.message,
    ),
  );
  const results = await Promise.all(writes);
  t.same(
    results.filter((r) => r !== 'ok'),
    [],
    'no write failed',
  );
  await nodes[1].sync();
  t.equal(
    nodes[1]
      .check(Array.from({ length: 40 }, (_, i) => ({ user: `user:u${i}`, relation: 'viewer', object: 'doc:busy' })))
      .filter(Boolean).length,
    40,
  );
});

/** Counts the change-log queries a storage runs (knex reports every query it sends). */
function changeLogQueries(storage: Awaited<ReturnType<typeof openStorage>>): () => number {
  let n = 0;
  const knex = (
    storage.orm.em.getConnection() as unknown as {
      getKnex(): { on(event: 'query', listener: (q: { sql: string }) => void): void };
    }
  ).getKnex();
  knex.on('query', (q) => {
    if (q.sql.includes('latchkey_fga_changes')) n++;
  });
  return () => n;
}

t.test('on a SQLite file a poll with nothing committed since the last one asks the database nothing', async (t) => {
  const { nodes, storage } = await twoConnectionsOnSqlite(t);
  const [writer, reader] = nodes;
  await writer.installModel(MODEL);
  await reader.sync();
  const queries = changeLogQueries(storage);
  await writer.sync();
  await writer.sync();
  const idle = queries();
  for (let i = 0; i < 5; i++) await writer.sync();
  t.equal(queries(), idle, 'five polls of an idle log: no query');
  // Another connection (another node, as another process would be) commits a tuple.
  await reader.writeTuples([{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }]);
  await writer.sync();
  t.ok(queries() > idle, 'the commit is noticed and the log read');
  t.same(writer.check([{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }]), [true], 'and the change applied');
  const afterWrite = queries();
  await writer.sync();
  t.equal(queries(), afterWrite, 'quiet again once read to the end');
  // Any commit counts, not only the change log's: the stamp cannot tell them apart.
  await storage.orm.em.fork().getConnection().execute('create table unrelated_commit (x integer)');
  await writer.sync();
  t.ok(queries() > afterWrite, 'an unrelated commit makes the next poll read the log');
});

t.test("a node storing sessions all the while still sees another node's writes", async (t) => {
  // A keeps its sessions in the same file (the database memory store), so its own writes are
  // the stamp's "own writes": the only commit since the last look leaves the stamp as it was.
  const [b, a] = await kernelsOn(t, await sqliteTarget(), 'database');
  const sees = viewsDoc(a);
  let storing = true;
  let stored = 0;
  const sessions = (async () => {
    while (storing) {
      await a.kernel.memory.set(`session:busy:${stored++}`, 'x', 60_000);
      await sleep(1);
    }
  })();
  for (let i = 0; i < 5; i++) {
    const user = `user:u${i}`;
    await b.kernel.invoke('_fga_write_tuples', testContext(b.kernel), {
      tuples: [{ user, relation: 'viewer', object: 'doc:1' }],
    });
    const start = performance.now();
    while (!sees(user)) {
      if (performance.now() - start > PROPAGATION_BOUND_MS) break;
      await sleep(2);
    }
    t.ok(sees(user), `write ${i + 1} on B seen on A within ${PROPAGATION_BOUND_MS} ms while A stored sessions`);
  }
  storing = false;
  await sessions;
  t.ok(stored > 20, `A stored ${stored} sessions meanwhile`);
});
