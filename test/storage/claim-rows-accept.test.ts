/**
 * A claimer that declines some of the due rows it reads (storage/claim-rows.ts `accept`, a cap per
 * group of rows), on every SQL database: it is asked in due order, it gets only the rows it
 * accepted, and a declined row is left exactly as it was (no lease), so the next claim takes it
 * in its turn.
 */
import { defineEntity } from '@mikro-orm/core';
import t from 'tap';
import { Config } from '../../core/config.js';
import { claimRows, openStorage, type LeasedRow } from '../../storage/index.js';
import { databaseTargets } from '../helpers/databases.js';

const GroupedEntity = defineEntity({
  name: 'ClaimAcceptTestRow',
  tableName: 'claim_accept_test_rows',
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    grp: p.string().length(16),
    state: p.string().length(16),
    dueAt: p.bigint('number').fieldName('due_at'),
    leaseUntil: p.bigint('number').fieldName('lease_until').nullable(),
    leaseOwner: p.string().fieldName('lease_owner').length(64).nullable(),
  }),
});

interface Row extends LeasedRow {
  grp: string;
  state: string;
  dueAt: number;
}

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: declined rows stay unclaimed for a later claim`, async (t) => {
    const storage = await openStorage(new Config(target.flags), [GroupedEntity]);
    t.teardown(() => storage.close());
    const em = storage.em();
    const now = Date.now();
    // a0 b0 a1 b1 … a4 b4, due in that order.
    for (let i = 0; i < 10; i++) {
      em.create(GroupedEntity, {
        id: `row-${String(i).padStart(2, '0')}`,
        grp: i % 2 === 0 ? 'a' : 'b',
        state: 'pending',
        dueAt: now - 100 + i,
        leaseUntil: null,
        leaseOwner: null,
      } as never);
    }
    await em.flush();
    const due = { state: 'pending', dueAt: { $lte: now } };
    const asked: string[] = [];
    const taken = new Map<string, number>();
    const first = await claimRows<Row>(storage, GroupedEntity, {
      due,
      orderBy: { dueAt: 'asc' },
      limit: 10,
      owner: 'one',
      leaseMs: 60_000,
      now,
      accept: (row) => {
        asked.push(row.id);
        const n = taken.get(row.grp) ?? 0;
        if (n >= 2) return false;
        taken.set(row.grp, n + 1);
        return true;
      },
    });
    t.same(
      asked,
      Array.from({ length: 10 }, (_, i) => `row-${String(i).padStart(2, '0')}`),
      'asked about every row read, in due order',
    );
    t.same(
      first.map((r) => r.id),
      ['row-00', 'row-01', 'row-02', 'row-03'],
      'two of each group claimed, the oldest',
    );
    t.ok(
      first.every((r) => r.leaseOwner === 'one' && r.leaseUntil === now + 60_000),
      'with their lease',
    );
    const stored = (await storage
      .em()
      .find(GroupedEntity, {} as never, { orderBy: { dueAt: 'asc' } as never })) as unknown as Row[];
    const left = stored.filter((r) => !first.some((f) => f.id === r.id));
    t.equal(left.length, 6);
    t.ok(
      left.every((r) => r.leaseUntil === null && r.leaseOwner === null && r.state === 'pending'),
      'the declined rows keep no lease',
    );
    const second = await claimRows<Row>(storage, GroupedEntity, {
      due,
      orderBy: { dueAt: 'asc' },
      limit: 10,
      owner: 'two',
      leaseMs: 60_000,
      now,
    });
    t.same(
      second.map((r) => r.id),
      ['row-04', 'row-05', 'row-06', 'row-07', 'row-08', 'row-09'],
      'the next claim takes the declined rows, in due order',
    );
  });
}
