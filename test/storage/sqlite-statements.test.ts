/**
 * Fixed SQL through storage.statements (storage/sqlite-statements.ts): the same answers on every
 * SQL database, and on SQLite one compiled statement per text, kept across calls.
 */
import t from 'tap';
import { Config } from '../../core/config.js';
import { openStorage } from '../../storage/index.js';
import { databaseTargets } from '../helpers/databases.js';

const targets = await databaseTargets();
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`statements on ${target.name}`, async (t) => {
    const storage = await openStorage(new Config({ ...target.flags }), []);
    t.teardown(() => storage.close());
    const conn = storage.orm.em.getConnection();
    await conn.execute('create table lk_statements_probe (k varchar(20) primary key, v varchar(20))');
    const insert = 'insert into lk_statements_probe (k, v) values (?, ?)';
    t.strictSame(await storage.statements.run(insert, ['a', 'one'], 'run'), { affectedRows: 1 });
    t.strictSame(
      await storage.statements.run(insert, ['b', "it's"], 'run'),
      { affectedRows: 1 },
      'values are bound, not spliced',
    );
    const byKey = 'select k, v from lk_statements_probe where k = ?';
    // Drivers may add metadata fields to rows (libsql does); the columns are what counts.
    const kv = (row: Record<string, unknown> | undefined) => row && { k: row.k, v: row.v };
    t.strictSame(kv(await storage.statements.run(byKey, ['a'], 'get')), { k: 'a', v: 'one' });
    t.strictSame(kv(await storage.statements.run(byKey, ['b'], 'get')), { k: 'b', v: "it's" });
    t.equal(await storage.statements.run(byKey, ['missing'], 'get'), undefined);
    const all = await storage.statements.run('select k from lk_statements_probe order by k', [], 'all');
    t.strictSame(
      all.map((r) => r.k),
      ['a', 'b'],
    );
    t.strictSame(await storage.statements.run('delete from lk_statements_probe where k = ?', ['zzz'], 'run'), {
      affectedRows: 0,
    });
    await conn.execute('drop table lk_statements_probe');
  });
}

t.test('on SQLite a statement is compiled once per connection and reused', async (t) => {
  const sqlite = targets.find((d) => d.name === 'sqlite');
  if (!sqlite) throw new Error('SQLite is always available');
  const storage = await openStorage(new Config({ ...sqlite.flags }), []);
  t.teardown(() => storage.close());
  const client = (
    storage.orm.em.getConnection() as unknown as {
      getKnex(): {
        client: {
          acquireConnection(): Promise<{ prepare(sql: string): unknown }>;
          releaseConnection(c: unknown): Promise<void>;
        };
      };
    }
  ).getKnex().client;
  const db = await client.acquireConnection();
  const prepared: string[] = [];
  const original = db.prepare.bind(db);
  db.prepare = (sql: string) => {
    prepared.push(sql);
    return original(sql);
  };
  await client.releaseConnection(db);
  for (let i = 0; i < 5; i++) await storage.statements.run('select ? as n', [i], 'get');
  t.equal(await storage.statements.run('select ? as n', [7], 'get').then((r) => r?.n), 7);
  t.strictSame(prepared, ['select ? as n'], 'one compile for six calls');
});

t.test(
  'on SQLite each statement borrows the connection from the pool; one held by a transaction is waited for',
  async (t) => {
    const sqlite = targets.find((d) => d.name === 'sqlite');
    if (!sqlite) throw new Error('SQLite is always available');
    const storage = await openStorage(new Config({ ...sqlite.flags }), []);
    t.teardown(() => storage.close());
    const conn = storage.orm.em.getConnection();
    await conn.execute('create table lk_idle_probe (k varchar(20) primary key, v varchar(20))');
    const client = (conn as unknown as { getKnex(): { client: { acquireConnection(): Promise<unknown> } } }).getKnex()
      .client;
    const original = client.acquireConnection.bind(client);
    let acquired = 0;
    client.acquireConnection = () => {
      acquired++;
      return original();
    };
    const byKey = 'select v from lk_idle_probe where k = ?';
    for (let i = 0; i < 5; i++) await storage.statements.run(byKey, ['none'], 'get');
    t.equal(acquired, 5, 'each statement takes the connection through the pool');
    acquired = 0;

    // A transaction holds the only connection: the statement must wait for its end, and then sees
    // the committed row (never a half-written one from inside the transaction).
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const em = storage.em();
    const trx = em.transactional(async (tem) => {
      await tem
        .getConnection()
        .execute("insert into lk_idle_probe (k, v) values ('t', 'committed')", [], 'run', tem.getTransactionContext());
      await gate;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    let answered = false;
    const read = storage.statements.run(byKey, ['t'], 'get').then((row) => {
      answered = true;
      return row;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    t.equal(answered, false, 'waits while the transaction holds the connection');
    open();
    await trx;
    t.equal((await read)?.v, 'committed');
    t.equal(acquired, 2, 'the transaction and the waiting statement each took it from the pool');
    await conn.execute('drop table lk_idle_probe');
  },
);
