/**
 * What a boot does to an existing schema (storage/schema/sync.ts, schema-lock.ts,
 * drop-unique.ts), on every reachable SQL database:
 * - indexes an operator added to our tables survive, while the stale unique rules on
 *   email and phone_number (uniqueness moved to the application) go, expression indexes included;
 * - servers booting at once against one new database all start (on PostgreSQL and MariaDB,
 *   fresh or upgrading).
 */
import t from 'tap';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { Config } from '../../../core/config.js';
import type { Storage } from '../../../core/storage.js';
import { USERS_TABLE, UserEntity } from '../../../plugins/users/entities.js';
import { dropStaleUniqueConstraints, openStorage, pendingSchemaSql } from '../../../storage/index.js';
import { databaseTarget, type DbName } from '../../helpers/databases.js';

const SQL: DbName[] = ['sqlite', 'postgres', 'mariadb'];

function exec(storage: Storage, sql: string): Promise<unknown> {
  return (storage.orm.em.getConnection() as unknown as AbstractSqlConnection).execute(sql, [], 'run');
}

/** The boot of the users plugin: schema sync, then the stale rules dropped (plugins/users/index.ts). */
async function boot(flags: Record<string, string>): Promise<Storage> {
  const storage = await openStorage(new Config(flags), [UserEntity]);
  await dropStaleUniqueConstraints(storage, USERS_TABLE, ['email', 'phone_number']);
  return storage;
}

async function indexNames(storage: Storage, type: string): Promise<string[]> {
  const conn = storage.orm.em.getConnection() as unknown as AbstractSqlConnection;
  const rows =
    type === 'postgres'
      ? await conn.execute<{ name: string }[]>(
          `select indexname as name from pg_indexes where tablename = ? and schemaname = current_schema()`,
          [USERS_TABLE],
        )
      : type === 'mariadb'
        ? await conn.execute<{ name: string }[]>(
            `select distinct index_name as name from information_schema.statistics where table_schema = database() and table_name = ?`,
            [USERS_TABLE],
          )
        : await conn.execute<{ name: string }[]>(
            `select name from sqlite_master where type = 'index' and tbl_name = ?`,
            [USERS_TABLE],
          );
  return rows.map((r) => r.name).sort();
}

for (const name of SQL) {
  t.test(`on ${name}`, async (t) => {
    const target = await databaseTarget(name);
    if (!target) return t.comment(`${name} is not reachable`);
    t.teardown(() => target.dispose());

    t.test("an operator's indexes survive a boot; stale unique rules on email and phone go", async (t) => {
      const first = await boot(target.flags);
      await exec(
        first,
        `insert into ${USERS_TABLE} (id, email, signup_methods, roles, created_at, updated_at, search) values ('u1', 'a@x.io', 'basic_auth', 'user', 1, 1, 'a@x.io')`,
      );
      await exec(first, `create unique index keep_names_uidx on ${USERS_TABLE} (given_name, family_name)`);
      await exec(first, `create index keep_nickname_idx on ${USERS_TABLE} (nickname)`);
      await exec(first, `create unique index old_email_uidx on ${USERS_TABLE} (email)`);
      if (name === 'postgres')
        await exec(first, `create unique index old_email_lower_uidx on ${USERS_TABLE} (lower(email))`);
      await first.close();

      const second = await boot(target.flags);
      t.teardown(() => second.close());
      const names = await indexNames(second, target.type);
      t.ok(names.includes('keep_names_uidx'), "the operator's unique index on other columns stays");
      t.ok(names.includes('keep_nickname_idx'), "the operator's plain index stays");
      t.notOk(names.includes('old_email_uidx'), 'the stale unique index on email goes');
      if (name === 'postgres')
        t.notOk(names.includes('old_email_lower_uidx'), 'a unique index on lower(email) goes too');
      t.equal(await pendingSchemaSql(second.orm, target.type), '', 'nothing left to do: the next boot changes nothing');
      await exec(
        second,
        `insert into ${USERS_TABLE} (id, email, signup_methods, roles, created_at, updated_at, search) values ('u2', 'A@x.io', 'basic_auth', 'user', 1, 1, 'a@x.io')`,
      );
      t.pass("a second row with the same email goes in (uniqueness is the application's)");
    });
  });

  t.test(`on ${name}: three servers booting at once against one new database all start`, async (t) => {
    for (let round = 0; round < 2; round++) {
      const target = await databaseTarget(name);
      if (!target) return t.comment(`${name} is not reachable`);
      t.teardown(() => target.dispose());
      const boots = await Promise.allSettled([boot(target.flags), boot(target.flags), boot(target.flags)]);
      const failed = boots
        .filter((b): b is PromiseRejectedResult => b.status === 'rejected')
        .map((b) => String((b.reason as Error).message).slice(0, 200));
      t.same(failed, [], `round ${round + 1}: every boot started`);
      for (const b of boots) if (b.status === 'fulfilled') await b.value.close();
    }
  });
}
