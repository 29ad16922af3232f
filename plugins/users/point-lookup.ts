/**
 * Point lookups of one user row by a unique-ish column, as one prepared SQL statement per column.
 *
 * Why: every login reads the user by email or phone. Through MikroORM's query builder that read
 * measured ~0.4 ms of main-thread time, almost all of it building the query in code that runs too
 * rarely (once per login) to leave V8's baseline tier. The statement text never changes, so it is
 * built once from the entity's metadata (quoted names per platform) and the row comes back with
 * property names as aliases; `toRecord` already normalizes driver values (BIGINT strings, 0/1).
 * Nothing is written through these rows, so the lookup needs no unit of work (no EntityManager
 * fork), and on SQLite the statement is compiled once (storage/sqlite-statements.ts).
 */
import type { Storage } from '../../core/storage.js';
import type { UserRow } from './entities.js';

type LookupColumn = 'id' | 'email' | 'phoneNumber';

export function sqlPointLookup(storage: Storage, entityName: string) {
  const statements = new Map<LookupColumn, string>();
  const statementFor = (by: LookupColumn): string => {
    let sql = statements.get(by);
    if (sql) return sql;
    const manager = storage.orm.em;
    const meta = manager.getMetadata().get(entityName);
    const platform = manager.getPlatform();
    const q = (name: string) => platform.quoteIdentifier(name);
    const columns = meta.props
      .filter((p) => p.fieldNames?.length === 1 && p.persist !== false)
      .map((p) => `${q(p.fieldNames[0])} as ${q(p.name)}`)
      .join(', ');
    const where = meta.properties[by].fieldNames[0];
    sql = `select ${columns} from ${q(meta.tableName)} where ${q(where)} = ? limit 1`;
    statements.set(by, sql);
    return sql;
  };
  return async (by: LookupColumn, value: string): Promise<UserRow | null> => {
    const row = (await storage.statements.run(statementFor(by), [value], 'get')) as UserRow | undefined;
    return row ?? null;
  };
}
