/** The admin's users query: a page of users, optionally those whose fields hold a text. */
import { raw } from '@mikro-orm/core';
import type { DatabaseType, Storage } from '../../core/storage.js';
import { UserEntity, type UserRow } from './entities.js';
import { toRecord } from './records.js';
import type { UserListQuery, UserRecord } from './types.js';

/**
 * Where a (lowercased) query starts in the lowercased search column, compared byte for byte:
 * MySQL and MariaDB would otherwise compare under the column's collation, which also folds
 * accents (`jose` would find `José` there only). Null where there is no SQL.
 */
function positionSql(type: DatabaseType): string | null {
  switch (type) {
    case 'sqlite':
    case 'libsql':
      return 'instr(search, ?)';
    case 'postgres':
      return 'strpos(search, ?)';
    case 'mysql':
    case 'mariadb':
      return 'instr(search collate utf8mb4_bin, ?)';
    default:
      return null;
  }
}

export async function listUsers(
  storage: Storage,
  { page, limit, query }: UserListQuery,
): Promise<{ users: UserRecord[]; total: number }> {
  const em = storage.em();
  const q = (query ?? '').trim().toLowerCase();
  const offset = (page - 1) * limit;
  const order = { orderBy: { createdAt: 'desc', id: 'desc' } as never };
  /** The page of rows `where` matches, counted by the database. */
  const counted = async (where: never) => {
    const [rows, total] = await em.findAndCount(UserEntity, where, { ...order, limit, offset });
    return { users: (rows as unknown as UserRow[]).map(toRecord), total };
  };
  const inFields = (r: UserRow) =>
    [r.id, r.email, r.givenName, r.familyName, r.nickname].some((field) => !!field && field.toLowerCase().includes(q));
  /** The rows `where` matches that hold the query in one of the fields, paged in memory. */
  const filtered = async (where: never) => {
    const found = ((await em.find(UserEntity, where, order)) as unknown as UserRow[]).filter(inFields);
    return { users: found.slice(offset, offset + limit).map(toRecord), total: found.length };
  };
  if (!q) return counted({} as never);
  if (!storage.isSql) {
    // MongoDB has no LIKE (MikroORM passes `$like` through, and the server refuses the unknown
    // operator: a 500 for any query there): the search text is matched by a regular expression
    // with every character of the query escaped, so it is a literal substring. A query holding a
    // newline is checked field by field, as below.
    const where = { search: new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) } as never;
    return q.includes('\n') ? filtered(where) : counted(where);
  }
  // On SQL databases the substring is found by its position (instr, strpos): every character of
  // the query is literal, so `_` or `%` do not match every row (which would then be loaded whole
  // to filter in memory). A query holding a newline, which joins the fields in the search column,
  // still takes the path below. So does one holding `?`: MikroORM writes a raw fragment's values
  // into its SQL text, where the driver would take that `?` for a placeholder (a 500 on SQLite
  // and MariaDB, wrong rows on PostgreSQL); the path below binds the query as an ordinary value.
  const position = positionSql(storage.type);
  const byPosition = (text: string) => ({ [raw(position!, [text])]: { $gt: 0 } }) as never;
  if (position && !q.includes('\n') && !q.includes('?')) return counted(byPosition(q));
  // A query holding a newline is matched field by field in memory, over the rows holding its
  // longest newline-free piece (with `_` or `%` in it, the LIKE below would match every row and
  // load them all).
  const piece = q.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '');
  if (position && piece.length > 0 && !piece.includes('?')) return filtered(byPosition(piece));
  // `%` and `_` are LIKE wildcards and SQLite has no default escape character: search with them
  // as single-character wildcards (a superset), then keep exact substring matches. The search
  // column joins the fields with a newline, so a query holding one could match across two
  // fields: such a query is checked field by field too.
  const pattern = `%${q.replace(/[%_\\]/g, '_')}%`;
  const exact = !/[%_\\\n]/.test(q);
  // MySQL and MariaDB compare text under the column's collation (utf8mb4_general_ci), which also
  // folds accents (`jose` would find `José` there and not on the other databases). The column
  // holds lowercased text already, so a binary comparison is the case-insensitive substring
  // match everywhere.
  const binaryLike = storage.type === 'mysql' || storage.type === 'mariadb';
  const where = (
    binaryLike ? { [raw('search collate utf8mb4_bin')]: { $like: pattern } } : { search: { $like: pattern } }
  ) as never;
  return exact ? counted(where) : filtered(where);
}
