/**
 * Uniqueness of `email` and `phone_number` moved from database constraints
 * to the application, so startup drops stale UNIQUE constraints and unique indexes on those
 * columns of the users and OTP tables. This finds every database-level uniqueness rule of
 * `table` whose columns are all among `columns` (so `unique(email)` and `unique(email,
 * phone_number)` go, `unique(email, tenant_id)` and the primary key stay) and drops it. Rows are
 * never touched: SQLite tables whose uniqueness is written into CREATE TABLE are rebuilt with
 * every row copied across in one transaction.
 */
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import type { MongoConnection } from '@mikro-orm/mongodb';
import type { Storage } from '../../core/storage.js';
import { withSchemaLock } from './schema-lock.js';

export interface UniqueRule {
  name: string;
  columns: string[];
  /** `constraint`: ALTER TABLE ... DROP CONSTRAINT; `index`: DROP INDEX; `inline`: SQLite table rebuild. */
  kind: 'constraint' | 'index' | 'inline';
}

/** Drops the stale rules and returns their names (empty when there were none, or no such table). */
export async function dropStaleUniqueConstraints(
  storage: Storage,
  table: string,
  columns: readonly string[],
): Promise<string[]> {
  const wanted = new Set(columns.map((c) => c.toLowerCase()));
  const covered = (r: UniqueRule) => r.columns.length > 0 && r.columns.every((c) => wanted.has(c.toLowerCase()));
  // One boot at a time (schema-lock.ts): two found the same rule and the second's drop failed.
  return withSchemaLock(storage.orm, storage.type, async () => {
    switch (storage.type) {
      case 'mongodb':
        return dropMongo(storage, table, covered);
      case 'postgres':
        return dropPostgres(sql(storage), table, covered);
      case 'mysql':
      case 'mariadb':
        return dropMysql(sql(storage), table, covered);
      case 'sqlite':
      case 'libsql':
        return dropSqlite(sql(storage), table, covered);
    }
  });
}

/** Every unique rule of a table (primary keys excluded); exported for tests and diagnostics. */
export async function uniqueRules(storage: Storage, table: string): Promise<UniqueRule[]> {
  switch (storage.type) {
    case 'mongodb':
      return (await mongoIndexes(storage, table)).map((i) => ({ name: i.name, columns: i.columns, kind: 'index' }));
    case 'postgres':
      return postgresRules(sql(storage), table);
    case 'mysql':
    case 'mariadb':
      return mysqlRules(sql(storage), table);
    case 'sqlite':
    case 'libsql':
      return sqliteRules(sql(storage), table);
  }
}

function sql(storage: Storage): AbstractSqlConnection {
  return storage.orm.em.getConnection() as unknown as AbstractSqlConnection;
}

function q(conn: AbstractSqlConnection, identifier: string): string {
  return conn.getPlatform().quoteIdentifier(identifier);
}

// --- PostgreSQL: pg_constraint for UNIQUE constraints, pg_index for unique indexes -------------
// The columns of a rule are its key columns and every column its expressions or predicate read
// (pg_depend), so a unique index on lower(email) counts as a rule on email: left in place it
// turned a signup race into a 500, as any other stale rule would.

async function postgresRules(conn: AbstractSqlConnection, table: string): Promise<UniqueRule[]> {
  const rows = await conn.execute<{ name: string; columns: string | string[]; is_constraint: boolean }[]>(
    `select i.relname as name,
            array_to_string(array(select a.attname from unnest(ix.indkey) k(attnum)
                                  join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
                                  union
                                  select a.attname from pg_depend d
                                  join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
                                  where d.classid = 'pg_class'::regclass and d.objid = ix.indexrelid
                                    and d.refclassid = 'pg_class'::regclass and d.refobjid = t.oid and d.refobjsubid > 0), ',') as columns,
            exists(select 1 from pg_constraint c where c.conindid = ix.indexrelid and c.contype = 'u') as is_constraint
       from pg_index ix
       join pg_class i on i.oid = ix.indexrelid
       join pg_class t on t.oid = ix.indrelid
       join pg_namespace n on n.oid = t.relnamespace
      where t.relname = ? and n.nspname = current_schema()
        and ix.indisunique and not ix.indisprimary`,
    [table],
  );
  return rows.map((r) => ({
    name: r.name,
    columns: (Array.isArray(r.columns) ? r.columns : r.columns.split(',')).filter(Boolean),
    kind: r.is_constraint ? 'constraint' : 'index',
  }));
}

async function dropPostgres(
  conn: AbstractSqlConnection,
  table: string,
  covered: (r: UniqueRule) => boolean,
): Promise<string[]> {
  const stale = (await postgresRules(conn, table)).filter(covered);
  for (const r of stale) {
    await conn.execute(
      r.kind === 'constraint'
        ? `alter table ${q(conn, table)} drop constraint if exists ${q(conn, r.name)}`
        : `drop index if exists ${q(conn, r.name)}`,
      [],
      'run',
    );
  }
  return stale.map((r) => r.name);
}

// --- MySQL / MariaDB: a UNIQUE constraint is a unique index ----------------------------------

async function mysqlRules(conn: AbstractSqlConnection, table: string): Promise<UniqueRule[]> {
  const rows = await conn.execute<{ name: string; column_name: string | null }[]>(
    `select index_name as name, column_name
       from information_schema.statistics
      where table_schema = database() and table_name = ? and non_unique = 0 and index_name <> 'PRIMARY'
      order by index_name, seq_in_index`,
    [table],
  );
  const byName = new Map<string, (string | null)[]>();
  for (const r of rows) byName.set(r.name, [...(byName.get(r.name) ?? []), r.column_name]);
  // Functional key parts have no column name: those rules are left alone.
  return [...byName]
    .filter(([, cols]) => cols.every((c) => c !== null))
    .map(([name, cols]) => ({ name, columns: cols as string[], kind: 'index' as const }));
}

async function dropMysql(
  conn: AbstractSqlConnection,
  table: string,
  covered: (r: UniqueRule) => boolean,
): Promise<string[]> {
  const stale = (await mysqlRules(conn, table)).filter(covered);
  for (const r of stale) await conn.execute(`alter table ${q(conn, table)} drop index ${q(conn, r.name)}`, [], 'run');
  return stale.map((r) => r.name);
}

// --- SQLite: CREATE UNIQUE INDEX can be dropped; UNIQUE inside CREATE TABLE needs a rebuild --

interface SqliteIndexRow {
  name: string;
  unique: number;
  origin: string;
  partial: number;
}

async function sqliteRules(conn: AbstractSqlConnection, table: string): Promise<UniqueRule[]> {
  const list = await conn.execute<SqliteIndexRow[]>(`pragma index_list(${q(conn, table)})`);
  const rules: UniqueRule[] = [];
  for (const idx of list) {
    if (!Number(idx.unique) || idx.origin === 'pk') continue;
    const info = await conn.execute<{ name: string | null }[]>(`pragma index_info(${q(conn, idx.name)})`);
    if (info.some((c) => c.name === null)) continue; // expression index
    rules.push({
      name: idx.name,
      columns: info.map((c) => c.name as string),
      kind: idx.origin === 'u' ? 'inline' : 'index',
    });
  }
  return rules;
}

async function dropSqlite(
  conn: AbstractSqlConnection,
  table: string,
  covered: (r: UniqueRule) => boolean,
): Promise<string[]> {
  const stale = (await sqliteRules(conn, table)).filter(covered);
  for (const r of stale.filter((r) => r.kind === 'index')) {
    await conn.execute(`drop index if exists ${q(conn, r.name)}`, [], 'run');
  }
  const inline = stale.filter((r) => r.kind === 'inline');
  if (inline.length > 0)
    await rebuildSqliteTable(
      conn,
      table,
      inline.map((r) => r.columns),
    );
  return stale.map((r) => r.name);
}

/**
 * The SQLite procedure for schema changes ALTER TABLE cannot make (sqlite.org/lang_altertable.html
 * §7): create the new shape, copy every row, drop the old table, rename, recreate indexes and
 * triggers, check foreign keys, all in one transaction with foreign key enforcement paused.
 */
async function rebuildSqliteTable(conn: AbstractSqlConnection, table: string, uniques: string[][]): Promise<void> {
  const master = await conn.execute<{ type: string; name: string; sql: string | null }[]>(
    `select type, name, sql from sqlite_master where tbl_name = ?`,
    [table],
  );
  const create = master.find((m) => m.type === 'table')?.sql;
  if (!create) return;
  const temp = `${table}__latchkey_rebuild`;
  const newSql = withoutInlineUniques(create, uniques).replace(
    /^\s*create\s+table\s+("[^"]+"|`[^`]+`|\[[^\]]+\]|\S+)/i,
    `create table ${q(conn, temp)}`,
  );
  const extras = master.filter((m) => (m.type === 'index' || m.type === 'trigger') && m.sql);
  await conn.execute('pragma foreign_keys = off', [], 'run');
  try {
    await conn.transactional(async (trx) => {
      const run = (s: string) => conn.execute(s, [], 'run', trx);
      await run(newSql);
      await run(`insert into ${q(conn, temp)} select * from ${q(conn, table)}`);
      await run(`drop table ${q(conn, table)}`);
      await run(`alter table ${q(conn, temp)} rename to ${q(conn, table)}`);
      for (const e of extras) await run(e.sql as string);
      const broken = await conn.execute<unknown[]>(`pragma foreign_key_check(${q(conn, table)})`, [], 'all', trx);
      if (broken.length > 0) throw new Error(`rebuilding ${table} would break ${broken.length} foreign key references`);
    });
  } finally {
    await conn.execute('pragma foreign_keys = on', [], 'run');
  }
}

/**
 * Removes the UNIQUE clauses for the given column sets from a CREATE TABLE statement: a
 * column's own `unique` keyword (single-column sets) and table constraints
 * `[constraint name] unique (cols)`. Anything else in the statement stays as written.
 */
export function withoutInlineUniques(createSql: string, uniques: string[][]): string {
  const open = createSql.indexOf('(');
  const close = createSql.lastIndexOf(')');
  const head = createSql.slice(0, open + 1);
  const tail = createSql.slice(close);
  const parts = splitTopLevel(createSql.slice(open + 1, close));
  const bare = (s: string) =>
    s
      .trim()
      .replace(/^["`[]|["`\]]$/g, '')
      .toLowerCase();
  const sameSet = (a: string[], b: string[]) =>
    a.length === b.length && a.every((x) => b.map((y) => y.toLowerCase()).includes(x.toLowerCase()));
  const kept: string[] = [];
  for (const part of parts) {
    const tableUnique = /^\s*(constraint\s+\S+\s+)?unique\s*\(([^)]*)\)/i.exec(part);
    if (tableUnique) {
      const cols = tableUnique[2].split(',').map(bare);
      if (uniques.some((u) => sameSet(u, cols))) continue;
      kept.push(part);
      continue;
    }
    const col = /^\s*("[^"]+"|`[^`]+`|\[[^\]]+\]|\w+)/.exec(part);
    const name = col ? bare(col[1]) : '';
    if (name && uniques.some((u) => u.length === 1 && u[0].toLowerCase() === name)) {
      kept.push(part.replace(/\s+(constraint\s+\S+\s+)?unique(\s+on\s+conflict\s+\w+)?\b/gi, ''));
      continue;
    }
    kept.push(part);
  }
  return head + kept.join(',') + tail;
}

/** Splits on commas that are not inside parentheses or quotes. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '[') quote = ']';
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

// --- MongoDB: no constraints, only unique indexes ---------------------------------------------

async function mongoIndexes(storage: Storage, collection: string): Promise<{ name: string; columns: string[] }[]> {
  const conn = storage.orm.em.getConnection() as unknown as MongoConnection;
  const db = conn.getDb();
  const exists = await db.listCollections({ name: collection }, { nameOnly: true }).hasNext();
  if (!exists) return [];
  const indexes = await db.collection(collection).indexes();
  return indexes
    .filter((i) => i.unique && i.name && i.name !== '_id_')
    .map((i) => ({ name: i.name as string, columns: Object.keys(i.key) }));
}

async function dropMongo(storage: Storage, collection: string, covered: (r: UniqueRule) => boolean): Promise<string[]> {
  const stale = (await mongoIndexes(storage, collection)).filter((i) => covered({ ...i, kind: 'index' }));
  const db = (storage.orm.em.getConnection() as unknown as MongoConnection).getDb();
  for (const i of stale) await db.collection(collection).dropIndex(i.name);
  return stale.map((i) => i.name);
}
