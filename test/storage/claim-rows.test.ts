/**
 * Claiming queued rows (storage/claim-rows.ts) on every SQL database: several claimers racing
 * over the same rows each get a disjoint share and together all of them; a claimed row is not
 * claimed again while its lease holds and is claimable once it runs out; an update fenced by a
 * lease that ran out and was taken by another claimer changes nothing. Writes made with the
 * claimed rows (`withClaimed`) are stored with the claim; when they fail the claim fails, and where
 * the claim is a transaction (PostgreSQL, MySQL, MariaDB) no lease is left either.
 */
import { defineEntity } from '@mikro-orm/core';
import t from 'tap';
import { Config } from '../../core/config.js';
import type { Storage } from '../../core/storage.js';
import { claimRows, openStorage, updateLeased, type LeasedRow } from '../../storage/index.js';
import { databaseTargets } from '../helpers/databases.js';

const QueueEntity = defineEntity({
  name: 'ClaimTestRow',
  tableName: 'claim_test_rows',
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    state: p.string().length(16),
    dueAt: p.bigint('number').fieldName('due_at'),
    leaseUntil: p.bigint('number').fieldName('lease_until').nullable(),
    leaseOwner: p.string().fieldName('lease_owner').length(64).nullable(),
  }),
});

/** A row written for each claimed row, in the claim's transaction. */
const NoteEntity = defineEntity({
  name: 'ClaimTestNote',
  tableName: 'claim_test_notes',
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    rowId: p.string().fieldName('row_id').length(64),
  }),
});

interface Row extends LeasedRow {
  state: string;
  dueAt: number;
}

/** Stores pending rows due 10 ms ago, in the given order; answers the instant they are due by. */
async function duePendingRows(storage: Storage, ids: string[]): Promise<number> {
  const now = Date.now();
  const em = storage.em();
  for (const [i, id] of ids.entries())
    em.create(QueueEntity, { id, state: 'pending', dueAt: now - 10 + i, leaseUntil: null, leaseOwner: null } as never);
  await em.flush();
  return now;
}

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: racing claimers share the rows without overlap`, async (t) => {
    const storage = await openStorage(new Config(target.flags), [QueueEntity, NoteEntity]);
    t.teardown(() => storage.close());
    const em = storage.em();
    const now = Date.now();
    for (let i = 0; i < 60; i++) {
      em.create(QueueEntity, {
        id: `row-${String(i).padStart(2, '0')}`,
        state: 'pending',
        dueAt: now - i,
        leaseUntil: null,
        leaseOwner: null,
      } as never);
    }
    em.create(QueueEntity, {
      id: 'not-due',
      state: 'pending',
      dueAt: now + 60_000,
      leaseUntil: null,
      leaseOwner: null,
    } as never);
    await em.flush();
    const due = { state: 'pending', dueAt: { $lte: now } };
    const byOwner = new Map<string, string[]>();
    await Promise.all(
      ['a', 'b', 'c', 'd'].map(async (owner) => {
        const mine: string[] = [];
        for (;;) {
          const rows = await claimRows<Row>(storage, QueueEntity, {
            due,
            orderBy: { dueAt: 'asc' },
            limit: 4,
            owner,
            leaseMs: 60_000,
            now,
          });
          if (rows.length === 0) break;
          mine.push(...rows.map((r) => r.id));
        }
        byOwner.set(owner, mine);
      }),
    );
    const all = [...byOwner.values()].flat();
    t.equal(all.length, 60, 'every due row claimed');
    t.equal(new Set(all).size, 60, 'none by two claimers');
    t.notOk(all.includes('not-due'), 'a row not yet due is left');

    const later = now + 120_000;
    const [again] = await claimRows<Row>(storage, QueueEntity, {
      due,
      orderBy: { dueAt: 'asc' },
      limit: 1,
      owner: 'e',
      leaseMs: 1000,
      now: later,
    });
    t.ok(again, 'a row whose lease ran out is claimable again');
    const stale = {
      id: again.id,
      leaseUntil: now + 60_000,
      leaseOwner: [...byOwner].find(([, ids]) => ids.includes(again.id))![0],
    };
    t.notOk(
      await updateLeased(storage.em(), QueueEntity, stale, { state: 'done' }),
      'the old claimer can no longer update it',
    );
    t.ok(await updateLeased(storage.em(), QueueEntity, again, { state: 'done' }), 'the new claimer can');
  });
}

for (const target of targets) {
  t.test(`${target.name}: writes made with the claimed rows share the claim's outcome`, async (t) => {
    const storage = await openStorage(new Config(target.flags), [QueueEntity, NoteEntity]);
    t.teardown(() => storage.close());
    const now = await duePendingRows(storage, ['x1', 'x2', 'x3']);
    const claim = (owner: string, limit: number, fail: boolean) =>
      claimRows<Row>(storage, QueueEntity, {
        due: { state: 'pending', dueAt: { $lte: now } },
        orderBy: { dueAt: 'asc' },
        limit,
        owner,
        leaseMs: 60_000,
        now,
        withClaimed: async (tx, rows) => {
          for (const row of rows) tx.create(NoteEntity, { id: `note-${row.id}`, rowId: row.id } as never);
          await tx.flush();
          if (fail) throw new Error('the writes fail after they were made');
        },
      });
    const leaseOf = async (id: string) =>
      ((await storage.em().findOne(QueueEntity, { id } as never)) as unknown as Row).leaseOwner;

    const taken = await claim('a', 1, false);
    t.same(
      taken.map((r) => r.id),
      ['x1'],
      'one row claimed',
    );
    t.equal(await storage.em().count(NoteEntity, { rowId: 'x1' } as never), 1, 'its note is stored');
    t.equal(await leaseOf('x1'), 'a', 'with its lease');

    await t.rejects(claim('b', 2, true), /the writes fail/, 'a failure in the writes fails the claim');
    t.equal(await storage.em().count(NoteEntity, {} as never), 1, 'none of its notes is stored');
    const transactional = ['postgres', 'mysql', 'mariadb'].includes(storage.type);
    t.same(
      [await leaseOf('x2'), await leaseOf('x3')],
      transactional ? [null, null] : ['b', 'b'],
      transactional
        ? 'the claim was undone with them: no lease is left'
        : 'the leases were set before the writes and are left to run out',
    );
  });
}

// SQLite reads the candidates first and takes each with a conditional update; another process may
// finish a row in between (here: a write queued while the first candidate is being taken).
const sqlite = targets.find((d) => d.name === 'sqlite');
if (sqlite) {
  t.test('sqlite: a row finished by another claimer after the read is not taken again', async (t) => {
    const storage = await openStorage(new Config(sqlite.flags), [QueueEntity, NoteEntity]);
    t.teardown(() => storage.close());
    const now = await duePendingRows(storage, ['first', 'second']);
    let finishing: Promise<number> | undefined;
    const taken = await claimRows<Row>(storage, QueueEntity, {
      due: { state: 'pending', dueAt: { $lte: now } },
      orderBy: { dueAt: 'asc' },
      limit: 2,
      owner: 'a',
      leaseMs: 60_000,
      now,
      accept: (row) => {
        if (row.id === 'first')
          finishing = storage.em().nativeUpdate(QueueEntity, { id: 'second' } as never, { state: 'done' } as never);
        return true;
      },
    });
    t.equal(await finishing, 1, 'the other claimer finished the second row after the read');
    t.same(
      taken.map((r) => r.id),
      ['first'],
      'only the row still due is taken',
    );
  });
}
