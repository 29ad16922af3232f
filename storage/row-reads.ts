/**
 * One row of a table found by exact values of some of its columns, as one fixed SELECT per set
 * of columns (SQL databases), for reads that every sign-in runs: whether the user has a second
 * factor enrolled (an MFA enrollment, a passkey).
 *
 * Why not MikroORM's `findOne` or `count`: each builds its query through the query builder and
 * knex, and on SQLite has the statement compiled again, in code that runs once per login, too
 * rarely to leave V8's baseline tier (the user lookup measured ~0.4 ms of main-thread time that
 * way; plugins/users/point-lookup.ts). The text here is built once from the entity's metadata
 * (names quoted by the platform, columns aliased to property names) and run with bound values (a
 * kept prepared statement on SQLite, storage/sqlite-statements.ts). Nothing is written through
 * these rows.
 *
 * MySQL and MariaDB compare text under the column's collation, which ignores case and trailing
 * spaces: a row is answered only when every given value matches exactly, as on SQLite and
 * PostgreSQL.
 */
import type { Storage } from '../core/storage.js';

/** The first row whose columns hold exactly `where`'s values (keyed by property name), or null. */
export type ReadRow = (where: Readonly<Record<string, string | number>>) => Promise<Record<string, unknown> | null>;

export function rowReader(storage: Storage, entityName: string): ReadRow {
  if (!storage.isSql) throw new Error('rowReader needs a SQL database');
  const texts = new Map<string, string>();
  const textFor = (names: readonly string[]): string => {
    const signature = names.join(',');
    let sql = texts.get(signature);
    if (sql === undefined) {
      const meta = storage.orm.em.getMetadata().get(entityName);
      const q = (name: string) => storage.orm.em.getPlatform().quoteIdentifier(name);
      const columns = meta.props
        .filter((p) => p.fieldNames?.length === 1 && p.persist !== false)
        .map((p) => `${q(p.fieldNames[0])} as ${q(p.name)}`)
        .join(', ');
      const conditions = names.map((name) => `${q(meta.properties[name].fieldNames[0])} = ?`).join(' and ');
      sql = `select ${columns} from ${q(meta.tableName)} where ${conditions} limit 1`;
      texts.set(signature, sql);
    }
    return sql;
  };
  return async (where) => {
    const names = Object.keys(where);
    const row = await storage.statements.run(
      textFor(names),
      names.map((name) => where[name]),
      'get',
    );
    if (!row) return null;
    for (const name of names) if (typeof where[name] === 'string' && row[name] !== where[name]) return null;
    return row;
  };
}
