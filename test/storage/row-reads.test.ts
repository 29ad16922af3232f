/**
 * One row found by exact column values through a fixed SELECT (storage/row-reads.ts): the row
 * with every column under its property name on every SQL database, null when none matches, and
 * never a row that only MySQL's or MariaDB's collation takes for a match (another case, trailing
 * spaces).
 */
import t from 'tap';
import { defineEntity } from '@mikro-orm/core';
import { Config } from '../../core/config.js';
import { openStorage, rowReader } from '../../storage/index.js';
import { databaseTargets } from '../helpers/databases.js';

const ProbeEntity = defineEntity({
  name: 'LkReadProbe',
  tableName: 'lk_read_probe',
  properties: (p) => ({
    id: p.string().primary().length(64),
    ownerId: p.string().fieldName('owner_id').length(64),
    kind: p.string().length(16),
    note: p.string().length(64).nullable(),
    createdAt: p.bigint('number').fieldName('created_at'),
  }),
});

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`reads on ${target.name}`, async (t) => {
    const storage = await openStorage(new Config(target.flags), [ProbeEntity]);
    t.teardown(() => storage.close());
    const em = storage.em();
    em.create(ProbeEntity, { id: 'r1', ownerId: 'owner-a', kind: 'totp', note: "it's", createdAt: 7 });
    em.create(ProbeEntity, { id: 'r2', ownerId: 'owner-a', kind: 'email_otp', note: null, createdAt: 8 });
    await em.flush();
    const read = rowReader(storage, ProbeEntity.meta.className);
    const row = await read({ ownerId: 'owner-a', kind: 'totp' });
    t.strictSame(
      row && [row.id, row.ownerId, row.kind, row.note, Number(row.createdAt)],
      ['r1', 'owner-a', 'totp', "it's", 7],
      'every column, under its property name',
    );
    t.equal((await read({ ownerId: 'owner-a', kind: 'email_otp' }))?.id, 'r2', 'another set of values');
    t.not(await read({ ownerId: 'owner-a' }), null, 'another set of columns');
    t.equal(await read({ ownerId: 'owner-b', kind: 'totp' }), null, 'no match');
    t.equal(await read({ ownerId: 'OWNER-A', kind: 'totp' }), null, 'another case is no match');
    t.equal(await read({ ownerId: 'owner-a ', kind: 'totp' }), null, 'trailing spaces are no match');
  });
}
