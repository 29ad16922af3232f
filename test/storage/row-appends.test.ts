/**
 * Rows added by one fixed INSERT (storage/row-appends.ts): every row and column lands on every SQL
 * database, and on a SQLite file an append that was the only commit leaves the change stamp as it
 * was (the reads kept in process stay good), while a commit by anyone else still moves it.
 */
import t from 'tap';
import { defineEntity } from '@mikro-orm/core';
import { Config } from '../../core/config.js';
import { openStorage, rowAppender } from '../../storage/index.js';
import { databaseTargets } from '../helpers/databases.js';

const ProbeEntity = defineEntity({
  name: 'LkAppendProbe',
  tableName: 'lk_append_probe',
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    label: p.string().length(64),
    note: p.string().length(64).nullable(),
    createdAt: p.bigint('number').fieldName('created_at'),
  }),
});

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`appends on ${target.name}`, async (t) => {
    const storage = await openStorage(new Config(target.flags), [ProbeEntity]);
    t.teardown(() => storage.close());
    const append = rowAppender(storage, ProbeEntity.meta.className);
    await append([]);
    await append([{ id: 'a', label: "it's", note: null, createdAt: 1_700_000_000 }]);
    await append([
      { id: 'b', label: 'two', note: 'x', createdAt: 2 },
      { id: 'c', label: 'three', createdAt: 3 },
    ]);
    const rows = await storage.em().find(ProbeEntity, {}, { orderBy: { id: 'asc' } });
    t.strictSame(
      rows.map((r) => [r.id, r.label, r.note ?? null, Number(r.createdAt)]),
      [
        ['a', "it's", null, 1_700_000_000],
        ['b', 'two', 'x', 2],
        ['c', 'three', null, 3],
      ],
      'values bound, not spliced; a missing property is NULL',
    );
    await t.rejects(
      append([{ id: 'a', label: 'again', createdAt: 4 }]),
      'a row the database refuses (a duplicate key) rejects',
    );
  });
}

t.test('SQLite: an append that is the only commit keeps the stamp; another commit moves it', async (t) => {
  const target = targets.find((d) => d.name === 'sqlite');
  if (!target) return t.fail('no SQLite target');
  const storage = await openStorage(new Config(target.flags), [ProbeEntity]);
  t.teardown(() => storage.close());
  const stamp = storage.changeStamp;
  if (!stamp) return t.fail('a SQLite file has a change stamp');
  const append = rowAppender(storage, ProbeEntity.meta.className);
  await append([{ id: 'warm', label: 'first', createdAt: 1 }]);
  const before = stamp.current();
  t.type(before, 'number');
  await append([
    { id: 'd', label: 'four', createdAt: 4 },
    { id: 'e', label: 'five', createdAt: 5 },
  ]);
  t.equal(stamp.current(), before, 'kept reads stay good after our own append');
  await storage
    .em()
    .getConnection()
    .execute("insert into lk_append_probe (_id, label, created_at) values ('f', 'six', 6)");
  t.not(stamp.current(), before, 'a commit that is not an append of ours makes them stale');
  const after = stamp.current();
  await t.rejects(append([{ id: 'd', label: 'dup', createdAt: 7 }]));
  t.not(stamp.current(), after, 'a failed append counts as a change, to be safe');
});
