/**
 * The test-database sweep: a database left by a test process that died before its teardown is
 * dropped by a later run once it is more than an hour old; a fresh one (a parallel test's) stays.
 */
import t from 'tap';
import { Config } from '../../core/config.js';
import { openStorage } from '../../storage/index.js';
import { databaseTarget, sweepAbandonedDatabases, testDatabaseName } from './databases.js';

for (const server of ['postgres', 'mariadb'] as const) {
  t.test(`${server}: abandoned test databases are dropped, fresh ones kept`, async (t) => {
    const target = await databaseTarget(server);
    if (!target) {
      t.comment(`${server} not reachable`);
      return;
    }
    const storage = await openStorage(new Config(target.flags), []);
    const conn = storage.em().getConnection();
    const quote = (db: string) => (server === 'postgres' ? `"${db}"` : `\`${db}\``);
    const listSql =
      server === 'postgres'
        ? 'select datname as name from pg_database'
        : 'select schema_name as name from information_schema.schemata';
    const exists = async (db: string) =>
      ((await conn.execute(listSql, [], 'all')) as { name: string }[]).some((r) => r.name === db);
    const old = testDatabaseName(Date.now() - 2 * 60 * 60 * 1000);
    const fresh = testDatabaseName(Date.now() - 10 * 60 * 1000);
    t.teardown(async () => {
      for (const db of [old, fresh]) await conn.execute(`drop database if exists ${quote(db)}`, [], 'run');
      await storage.close();
      await target.dispose();
    });
    for (const db of [old, fresh]) await conn.execute(`create database ${quote(db)}`, [], 'run');
    t.ok(await exists(old), 'the abandoned database is there before the sweep');
    await sweepAbandonedDatabases(server);
    t.notOk(await exists(old), 'a test database older than an hour is dropped');
    t.ok(await exists(fresh), 'a ten-minute-old test database is kept');
    t.ok(await exists(target.flags['database-url'].split('/').pop() ?? ''), "this test's own database is kept");
  });
}
