/**
 * Schema creation and update at boot (DESIGN.md §4). SQL databases get MikroORM's safe update:
 * new tables, columns and indexes are added, nothing is dropped, so a downgrade or a plugin
 * turned off never loses user data. Running it again against an up-to-date database is a no-op.
 * MongoDB has no schema: collections and indexes are ensured.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { DatabaseType } from '../../core/storage.js';

export const SAFE_UPDATE = { safe: true, dropTables: false } as const;

export async function syncSchema(orm: MikroORM, type: DatabaseType): Promise<void> {
  if (type === 'mongodb') {
    await orm.schema.createSchema();
    return;
  }
  await orm.schema.updateSchema({ ...SAFE_UPDATE, wrap: true });
}

/** The SQL a boot would still run (empty when the schema is up to date); used by tests. */
export async function pendingSchemaSql(orm: MikroORM, type: DatabaseType): Promise<string> {
  if (type === 'mongodb') return '';
  return (await orm.schema.getUpdateSchemaSQL({ ...SAFE_UPDATE, wrap: false })).trim();
}
