/**
 * Two nodes on one SQLite file, one holding the write lock longer than the busy timeout
 * (storage/sqlite-busy.ts): the other node's write fails with SQLITE_BUSY, a request answers 503
 * `unavailable`, and that node's connection is healthy afterwards: its next transaction commits
 * (a statement left running by the busy error made COMMIT fail with "cannot commit transaction -
 * SQL statements in progress") and its next autocommit write is committed where the other node
 * sees it (it stayed in an open transaction holding the lock). The same through the ORM (the
 * conditional updates that claim queued rows, storage/claim-rows.ts), through the kept statements
 * (storage/sqlite-statements.ts), and over HTTP.
 */
import { defineEntity, type EntityManager } from '@mikro-orm/core';
import t, { type Test } from 'tap';
import { Config } from '../../core/config.js';
import type { Storage } from '../../core/storage.js';
import { SQLITE_BUSY_TIMEOUT_MS } from '../../storage/drivers.js';
import { SqliteBusyGuard } from '../../storage/sqlite-busy.js';
import { claimRows, openStorage, type LeasedRow } from '../../storage/index.js';
import { sqliteTarget } from '../helpers/databases.js';
import { postJson } from '../helpers/post-json.js';
import { startTestServer } from '../helpers/server.js';

const QueueEntity = defineEntity({
  name: 'BusyTestRow',
  tableName: 'busy_test_rows',
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    state: p.string().length(16),
    dueAt: p.bigint('number').fieldName('due_at'),
    leaseUntil: p.bigint('number').fieldName('lease_until').nullable(),
    leaseOwner: p.string().fieldName('lease_owner').length(64).nullable(),
  }),
});

/** The busy error as the caller gets it: SQLite's code, passed on by libsql and MikroORM. */
const busyCode = (err: unknown): string => String((err as { code?: unknown })?.code ?? (err as Error)?.message);

/** What a waiting write takes at least before SQLITE_BUSY (the timer may fire a little early). */
const WAITED_MS = SQLITE_BUSY_TIMEOUT_MS - 250;

/**
 * Another node holds the file's write lock: a transaction on `storage` that wrote a row and stays
 * open until `release()`, which commits it.
 */
async function holdWriteLock(storage: Storage): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const holding = new Promise<void>((resolve) => (locked = resolve));
  const done = storage.em().transactional(async (em: EntityManager) => {
    await em
      .getConnection()
      .execute(
        'insert into busy_lock_holder (k) values (?)',
        [`hold-${Date.now()}`],
        'run',
        em.getTransactionContext(),
      );
    locked();
    await released;
  });
  await Promise.race([holding, done]);
  return {
    release: async () => {
      release();
      await done;
    },
  };
}

async function twoNodes(t: Test): Promise<[Storage, Storage]> {
  const target = await sqliteTarget();
  const a = await openStorage(new Config(target.flags), [QueueEntity]);
  const b = await openStorage(new Config(target.flags), [QueueEntity]);
  t.teardown(async () => {
    await a.close();
    await b.close();
    await target.dispose();
  });
  await b.em().getConnection().execute('create table busy_lock_holder (k varchar(40) primary key)', [], 'run');
  return [a, b];
}

const failure = (p: Promise<unknown>): Promise<{ err: unknown; ms: number }> => {
  const start = performance.now();
  return p.then(
    () => ({ err: undefined, ms: performance.now() - start }),
    (err: unknown) => ({ err, ms: performance.now() - start }),
  );
};

t.test('a claim that meets SQLITE_BUSY leaves the node able to commit and to write', async (t) => {
  const [a, b] = await twoNodes(t);
  const now = Date.now();
  const seed = a.em();
  for (const id of ['r1', 'r2'])
    seed.create(QueueEntity, { id, state: 'pending', dueAt: now - 1, leaseUntil: null, leaseOwner: null } as never);
  await seed.flush();
  const claim = (owner: string) =>
    claimRows<LeasedRow>(a, QueueEntity, {
      due: { state: 'pending', dueAt: { $lte: Date.now() } },
      orderBy: { id: 'asc' },
      limit: 10,
      owner,
      leaseMs: 60_000,
    });

  const lock = await holdWriteLock(b);
  const blocked = await failure(claim('blocked'));
  await lock.release();
  t.match(busyCode(blocked.err), /^SQLITE_BUSY/, 'the claim fails with SQLITE_BUSY');
  t.ok(blocked.ms >= WAITED_MS, `after waiting for the lock (${blocked.ms.toFixed(0)} ms)`);

  const committed = await failure(
    a.em().transactional(async (em: EntityManager) => {
      await em.nativeUpdate(QueueEntity, { id: 'r1' } as never, { state: 'touched' } as never);
    }),
  );
  t.equal(committed.err, undefined, 'the next transaction on the node commits');

  const claimed = await claim('a');
  t.strictSame(
    claimed.map((r) => r.id),
    ['r2'],
    'the next claim takes the row still pending',
  );
  const rows = (await b.em().find(QueueEntity, {}, { orderBy: { id: 'asc' } })) as unknown as (LeasedRow & {
    state: string;
  })[];
  t.strictSame(
    rows.map((r) => [r.id, r.state, r.leaseOwner]),
    [
      ['r1', 'touched', null],
      ['r2', 'pending', 'a'],
    ],
    'the other node sees both writes: they were committed',
  );
  const after = await failure(
    b.em().getConnection().execute('insert into busy_lock_holder (k) values (?)', ['after'], 'run'),
  );
  t.equal(after.err, undefined, 'and can write at once: the node holds no lock');
});

t.test('a kept statement that meets SQLITE_BUSY leaves the node able to commit and to write', async (t) => {
  const [a, b] = await twoNodes(t);
  const insert = 'insert into busy_lock_holder (k) values (?)';
  t.strictSame(await a.statements.run(insert, ['warm'], 'run'), { affectedRows: 1 }, 'the statement is kept');

  const lock = await holdWriteLock(b);
  const blocked = await failure(a.statements.run(insert, ['blocked'], 'run'));
  await lock.release();
  t.match(busyCode(blocked.err), /^SQLITE_BUSY/, 'the write fails with SQLITE_BUSY');
  t.ok(blocked.ms >= WAITED_MS, `after waiting for the lock (${blocked.ms.toFixed(0)} ms)`);

  const committed = await failure(
    a.em().transactional(async (em: EntityManager) => {
      await em.getConnection().execute(insert, ['in-transaction'], 'run', em.getTransactionContext());
    }),
  );
  t.equal(committed.err, undefined, 'the next transaction on the node commits');
  t.strictSame(await a.statements.run(insert, ['kept-again'], 'run'), { affectedRows: 1 });
  const seen = (await b
    .em()
    .getConnection()
    .execute("select k from busy_lock_holder where k not like 'hold-%' order by k", [], 'all')) as { k: string }[];
  t.strictSame(
    seen.map((r) => r.k),
    ['in-transaction', 'kept-again', 'warm'],
    'the other node sees every write but the one refused',
  );
  const after = await failure(b.statements.run(insert, ['after'], 'run'));
  t.equal(after.err, undefined, 'and can write at once: the node holds no lock');
});

t.test('over HTTP: a signup that meets SQLITE_BUSY answers 503, and the next one is stored', async (t) => {
  const target = await sqliteTarget();
  const a = await startTestServer({ database: target });
  const b = await startTestServer({ database: target });
  t.teardown(async () => {
    await a.close();
    await b.close();
    await target.dispose();
  });
  const password = 'Busy-pass-1';
  const signup = (email: string) =>
    postJson(a.url, '/v1/signup', { email, password, confirm_password: password }, undefined, 30_000);
  const login = (email: string) => postJson(b.url, '/v1/login', { email, password });
  await b.kernel.storage
    .em()
    .getConnection()
    .execute('create table busy_lock_holder (k varchar(40) primary key)', [], 'run');
  t.equal((await signup('first@example.com')).status, 200, 'signed up while nobody holds the lock');

  const lock = await holdWriteLock(b.kernel.storage);
  const start = performance.now();
  const blocked = await signup('blocked@example.com');
  const ms = performance.now() - start;
  const body = (await blocked.json()) as Record<string, unknown>;
  await lock.release();
  t.equal(blocked.status, 503, `the signup answers 503 after ${ms.toFixed(0)} ms`);
  t.match(body, { code: 'unavailable' }, 'in the REST envelope');
  t.notMatch(JSON.stringify(body), /SQLITE|locked|insert/i, 'without detail');

  const committed = await failure(
    a.kernel.storage.em().transactional(async (em: EntityManager) => {
      await em
        .getConnection()
        .execute('insert into busy_lock_holder (k) values (?)', ['after'], 'run', em.getTransactionContext());
    }),
  );
  t.equal(committed.err, undefined, 'the next transaction on the node commits');
  const next = await signup('after@example.com');
  t.equal(next.status, 200, 'the next signup on the same node is stored');
  t.equal((await login('after@example.com')).status, 200, 'and the other node signs that user in');
  t.equal((await login('blocked@example.com')).status, 401, 'the refused signup left no account behind');
});

t.test('the pool refuses a connection once a statement on it met SQLITE_BUSY', async (t) => {
  const guard = new SqliteBusyGuard();
  const { afterCreate, validate } = guard.poolOptions();
  const open = () => {
    const c = {};
    afterCreate(c, () => {});
    return c;
  };
  const first = open();
  guard.check(Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }));
  t.equal(validate(first), true, 'another error leaves the connection in service');
  guard.check(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
  t.equal(validate(first), false, 'SQLITE_BUSY takes it out');
  const second = open();
  t.equal(validate(second), true, 'the connection opened in its place serves');
  t.equal(validate({ memory: true }), true, 'an in-memory database is never dropped');
});
