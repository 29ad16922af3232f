/**
 * Schema creation and update at boot. SQL databases get MikroORM's safe update:
 * new tables, columns and indexes are added, nothing is dropped, so a downgrade or a plugin
 * turned off never loses user data. Running it again against an up-to-date database is a no-op.
 * MongoDB has no schema: collections and indexes are ensured.
 *
 * "Nothing is dropped" includes what an operator added: MikroORM's safe update still dropped
 * every index, check and foreign key of our tables that our entities do not declare (a unique
 * index on (given_name, family_name), a plain index on nickname), so those are
 * taken out of the difference before it becomes SQL. The stale unique constraints and
 * indexes on `email` and `phone_number` of the users and OTP tables (uniqueness moved from the
 * database to the application) are dropped by name elsewhere (drop-unique.ts). Boots against one database run
 * this one at a time (schema-lock.ts).
 */
import type { MikroORM } from '@mikro-orm/core';
import { SchemaComparator, type SchemaDifference, type SqlSchemaGenerator } from '@mikro-orm/knex';
import type { DatabaseType } from '../../core/storage.js';
import { withSchemaLock } from './schema-lock.js';

export const SAFE_UPDATE = { safe: true, dropTables: false } as const;

type Schemas = Parameters<SchemaComparator['compare']>;
interface ComparisonSource {
  prepareSchemaForComparison(options: {
    safe: boolean;
    dropTables: boolean;
  }): Promise<{ fromSchema: Schemas[0]; toSchema: Schemas[1] }>;
}

/** The safe difference between the database and the entities, keeping what only the database has. */
async function additiveDifference(orm: MikroORM): Promise<{ generator: SqlSchemaGenerator; diff: SchemaDifference }> {
  const generator = orm.schema as unknown as SqlSchemaGenerator;
  // What getUpdateSchemaSQL itself does first (private in the typings, public at run time).
  const prepare = (generator as unknown as ComparisonSource).prepareSchemaForComparison.bind(generator);
  const { fromSchema, toSchema } = await prepare({ ...SAFE_UPDATE });
  const diff = new SchemaComparator(orm.em.getPlatform() as never).compare(fromSchema, toSchema);
  for (const table of Object.values(diff.changedTables)) {
    table.removedIndexes = {};
    table.removedChecks = {};
    table.removedForeignKeys = {};
  }
  return { generator, diff };
}

export async function syncSchema(orm: MikroORM, type: DatabaseType): Promise<void> {
  if (type === 'mongodb') {
    await orm.schema.createSchema();
    return;
  }
  await withSchemaLock(orm, type, async () => {
    const { generator, diff } = await additiveDifference(orm);
    const sql = await generator.diffToSQL(diff, { ...SAFE_UPDATE, wrap: true });
    if (sql.trim() !== '') await generator.execute(sql);
  });
}

/** The SQL a boot would still run (empty when the schema is up to date); used by tests. */
export async function pendingSchemaSql(orm: MikroORM, type: DatabaseType): Promise<string> {
  if (type === 'mongodb') return '';
  const { generator, diff } = await additiveDifference(orm);
  return (await generator.diffToSQL(diff, { ...SAFE_UPDATE, wrap: false })).trim();
}
