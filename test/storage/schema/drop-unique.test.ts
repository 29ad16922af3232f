/**
 * Stale UNIQUE constraints and indexes on email/phone_number are dropped at
 * startup without touching rows.
 */
import t from 'tap';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { Config } from '../../../core/config.js';
import type { Storage } from '../../../core/storage.js';
import { openStorage } from '../../../storage/index.js';
import { dropStaleUniqueConstraints, uniqueRules, withoutInlineUniques } from '../../../storage/schema/drop-unique.js';
import { databaseTargets } from '../../helpers/databases.js';

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

function exec(storage: Storage, sql: string): Promise<unknown> {
  return (storage.orm.em.getConnection() as unknown as AbstractSqlConnection).execute(sql, [], 'run');
}
function rows(storage: Storage, sql: string): Promise<Record<string, unknown>[]> {
  return (storage.orm.em.getConnection() as unknown as AbstractSqlConnection).execute(sql, [], 'all');
}

for (const target of targets) {
  t.test(`on ${target.name}`, async (t) => {
    const storage = await openStorage(new Config(target.flags), []);
    t.teardown(() => storage.close());

    t.test('a named UNIQUE constraint and a unique index on email go; data and other rules stay', async (t) => {
      await exec(
        storage,
        `create table users_a (id varchar(40) primary key, email varchar(200), phone_number varchar(40), tenant varchar(40),
          constraint users_a_email_key unique (email), constraint users_a_tenant_key unique (tenant, email))`,
      );
      await exec(storage, `create unique index users_a_phone_idx on users_a (phone_number)`);
      await exec(storage, `insert into users_a (id, email, phone_number, tenant) values ('1', 'a@x.io', '+100', 't1')`);
      await t.rejects(
        exec(storage, `insert into users_a (id, email, tenant) values ('2', 'a@x.io', 't2')`),
        'unique before',
      );

      const dropped = await dropStaleUniqueConstraints(storage, 'users_a', ['email', 'phone_number']);
      t.equal(dropped.length, 2, `dropped ${dropped.join(', ')}`);
      await exec(storage, `insert into users_a (id, email, phone_number, tenant) values ('2', 'a@x.io', '+100', 't2')`);
      const all = await rows(storage, `select id, email, phone_number from users_a order by id`);
      t.same(
        all.map((r) => [r.id, r.email, r.phone_number]),
        [
          ['1', 'a@x.io', '+100'],
          ['2', 'a@x.io', '+100'],
        ],
        'the old row is intact and the duplicate went in',
      );
      const left = await uniqueRules(storage, 'users_a');
      t.same(
        left.map((r) => r.columns.map((c) => c.toLowerCase()).sort()),
        [['email', 'tenant']],
        'a rule that also covers another column stays',
      );
      t.same(
        await dropStaleUniqueConstraints(storage, 'users_a', ['email', 'phone_number']),
        [],
        'a second run is a no-op',
      );
    });

    t.test('a column-level UNIQUE goes too', async (t) => {
      await exec(
        storage,
        `create table otps_a (id varchar(40) primary key, email varchar(200) unique, otp varchar(20) not null)`,
      );
      await exec(storage, `create index otps_a_otp_idx on otps_a (otp)`);
      await exec(storage, `insert into otps_a (id, email, otp) values ('1', 'a@x.io', '123456')`);
      const dropped = await dropStaleUniqueConstraints(storage, 'otps_a', ['email', 'phone_number']);
      t.equal(dropped.length, 1);
      await exec(storage, `insert into otps_a (id, email, otp) values ('2', 'a@x.io', '654321')`);
      t.equal((await rows(storage, `select id from otps_a`)).length, 2);
      await t.rejects(
        exec(storage, `insert into otps_a (id, email, otp) values ('2', 'b@x.io', '1')`),
        'primary key kept',
      );
    });

    t.test('a missing table is not an error', async (t) => {
      t.same(await dropStaleUniqueConstraints(storage, 'no_such_table', ['email']), []);
    });
  });
}

t.test('SQLite CREATE TABLE rewriting keeps everything but the stale clauses', async (t) => {
  const sql =
    'CREATE TABLE `u` (`id` text not null, `email` text null unique, `phone_number` text unique on conflict abort, ' +
    "`name` text check (name <> 'a,b'), constraint u_e unique (`email`), unique (email, `name`), primary key (`id`))";
  t.equal(
    withoutInlineUniques(sql, [['email'], ['phone_number']]),
    'CREATE TABLE `u` (`id` text not null, `email` text null, `phone_number` text, ' +
      "`name` text check (name <> 'a,b'), unique (email, `name`), primary key (`id`))",
  );
});
