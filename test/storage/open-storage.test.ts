/**
 * openStorage against every reachable database: schema sync of a plugin entity, a round trip,
 * an idempotent second boot, ping, and clear refusals.
 */
import t from 'tap';
import { defineEntity } from '@mikro-orm/core';
import { Config } from '../../core/config.js';
import { newId, openStorage, pendingSchemaSql } from '../../storage/index.js';
import { databaseTargets } from '../helpers/databases.js';

const Widget = defineEntity({
  name: 'TestWidget',
  tableName: 'test_widgets',
  properties: (p) => ({
    id: p.string().primary(),
    name: p.string(),
    count: p.integer().default(0),
    createdAt: p.datetime(),
    meta: p.json<{ tags: string[] }>().nullable(),
  }),
});

const WidgetV2 = defineEntity({
  name: 'TestWidget',
  tableName: 'test_widgets',
  properties: (p) => ({
    id: p.string().primary(),
    name: p.string(),
    createdAt: p.datetime(),
    colour: p.string().nullable(),
  }),
});

const targets = await databaseTargets();
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`on ${target.name}`, async (t) => {
    const config = new Config(target.flags);
    const id = newId();
    const createdAt = new Date('2025-01-02T03:04:05.000Z');

    t.test('first boot creates the schema and a round trip works', async (t) => {
      const storage = await openStorage(config, [Widget]);
      t.teardown(() => storage.close());
      t.equal(storage.type, target.type);
      t.equal(storage.isSql, target.isSql);
      t.equal(await storage.ping(), true, 'ping answers');
      const em = storage.em();
      em.create(Widget, { id, name: 'first', count: 3, createdAt, meta: { tags: ['a', 'b'] } });
      await em.flush();
      const back = await storage.em().findOneOrFail(Widget, id);
      t.same({ ...back }, { id, name: 'first', count: 3, createdAt, meta: { tags: ['a', 'b'] } });
      t.not(storage.em(), storage.em(), 'each em() is a fresh fork');
    });

    t.test('a second boot is idempotent and keeps the data', async (t) => {
      const storage = await openStorage(config, [Widget]);
      t.teardown(() => storage.close());
      t.equal(await pendingSchemaSql(storage.orm, storage.type), '', 'nothing left to change');
      t.equal((await storage.em().findOneOrFail(Widget, id)).name, 'first');
    });

    t.test('a changed entity adds columns without dropping any', async (t) => {
      const storage = await openStorage(config, [WidgetV2]);
      t.teardown(() => storage.close());
      const em = storage.em();
      const w = await em.findOneOrFail(WidgetV2, id);
      t.equal(w.colour, null, 'the new column exists');
      w.colour = 'blue';
      await em.flush();
      const again = await openStorage(config, [Widget]);
      t.teardown(() => again.close());
      const old = await again.em().findOneOrFail(Widget, id);
      t.equal(old.count, 3, 'the column V2 no longer declares still holds its data');
    });

    t.test('ping is false after close', async (t) => {
      const storage = await openStorage(config, []);
      await storage.close();
      t.equal(await storage.ping(), false);
      await storage.close();
      t.pass('closing twice is fine');
    });
  });
}

t.test('an unreachable server fails boot with a clear message, and never leaks the password', async (t) => {
  const config = new Config({ 'database-type': 'postgres', 'database-url': 'postgres://u:secret@127.0.0.1:1/x' });
  const err = await openStorage(config, []).then(
    () => null,
    (e: unknown) => e as Error,
  );
  t.ok(err, 'refused');
  t.match(err?.message, /postgres at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/);
  t.notMatch(err?.message, /secret/);
});

t.test('sqlite creates the folder of its file, and :memory: works', async (t) => {
  const [sqlite] = targets;
  const nested = sqlite.flags['database-url'].replace(/latchkey\.db$/, 'deeper/still/latchkey.db');
  const storage = await openStorage(new Config({ 'database-type': 'sqlite', 'database-url': nested }), [Widget]);
  t.equal(await storage.ping(), true);
  await storage.close();
  const mem = await openStorage(new Config({ 'database-type': 'sqlite', 'database-url': ':memory:' }), [Widget]);
  t.teardown(() => mem.close());
  const em = mem.em();
  em.create(Widget, { id: newId(), name: 'm', createdAt: new Date() });
  await em.flush();
  t.equal(await mem.em().count(Widget), 1);
});

t.test('libsql opens a file URL through the same driver', async (t) => {
  const [sqlite] = targets;
  const file = sqlite.flags['database-url'].replace(/latchkey\.db$/, 'libsql.db');
  const storage = await openStorage(new Config({ 'database-type': 'libsql', 'database-url': `file:${file}` }), [
    Widget,
  ]);
  t.teardown(() => storage.close());
  t.equal(storage.type, 'libsql');
  t.equal(await storage.ping(), true);
});

t.test('an unknown database type is refused with the list of choices', async (t) => {
  await t.rejects(openStorage(new Config({ 'database-type': 'oracle' }), []), {
    message: 'unsupported --database-type "oracle": expected one of sqlite, libsql, postgres, mysql, mariadb, mongodb',
  });
});
