/**
 * A database refusal of every insert into one table, for tests of what a refused row undoes: a
 * trigger in the dialect of the target's database. `refuseInserts` answers the function that
 * drops it again.
 */
import type { Storage } from '../../core/storage.js';

export async function refuseInserts(storage: Storage, table: string): Promise<() => Promise<void>> {
  const connection = storage.orm.em.getConnection();
  const run = (statement: string) => connection.execute(statement, [], 'run');
  const name = `${table}_refused`;
  if (storage.type === 'postgres') {
    await run(
      `create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'insert into ${table} refused'; end $$`,
    );
    await run(`create trigger ${name} before insert on ${table} for each row execute function ${name}()`);
    return async () => {
      await run(`drop trigger ${name} on ${table}`);
      await run(`drop function ${name}()`);
    };
  }
  if (storage.type === 'mysql' || storage.type === 'mariadb') {
    await run(
      `create trigger ${name} before insert on ${table} for each row signal sqlstate '45000' set message_text = 'insert into ${table} refused'`,
    );
    return async () => void (await run(`drop trigger ${name}`));
  }
  await run(
    `create trigger ${name} before insert on ${table} begin select raise(abort, 'insert into ${table} refused'); end`,
  );
  return async () => void (await run(`drop trigger ${name}`));
}
