/**
 * Everything a test server's SQL database holds, as text, to tell whether a refused call wrote
 * anything (brief, rule 3: "never a half-written record"), on SQLite, PostgreSQL, MariaDB and
 * MySQL. The audit log is left out: a refused admin call is audited on purpose (plugins/audit),
 * which is a record of the refusal, not a half-made one.
 */
import type { Kernel } from '../../core/kernel.js';

/** How each kind of database lists its own tables, and quotes a table's name. */
function dialect(type: string): { tables: string; quote: (name: string) => string } {
  switch (type) {
    case 'sqlite':
    case 'libsql':
      return {
        tables: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        quote: (n) => `"${n}"`,
      };
    case 'postgres':
      return {
        tables:
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
        quote: (n) => `"${n}"`,
      };
    case 'mysql':
    case 'mariadb':
      return {
        tables:
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = database() AND table_type = 'BASE TABLE' ORDER BY 1",
        quote: (n) => `\`${n}\``,
      };
    default:
      throw new Error(`databaseText: no SQL tables to read on ${type}`);
  }
}

/**
 * `skip`: tables left out besides the audit log's, e.g. the database memory store's
 * (`latchkey_memory`), where a refused call writes on purpose (a failed login's count).
 */
export async function databaseText(kernel: Kernel, skip?: RegExp): Promise<string> {
  const { statements, type } = kernel.storage;
  const { tables, quote } = dialect(type);
  const parts: string[] = [];
  for (const row of await statements.run(tables, [], 'all')) {
    const { name } = row as Record<string, unknown>;
    if (typeof name !== 'string' || /audit/.test(name) || skip?.test(name)) continue;
    parts.push(name, JSON.stringify(await statements.run(`SELECT * FROM ${quote(name)} ORDER BY 1`, [], 'all')));
  }
  if (parts.length === 0) throw new Error('databaseText: no tables found (the check would pass vacuously)');
  return parts.join('\n');
}

/**
 * One statement that reads the same tables as databaseText and answers a text that changes
 * whenever any of their rows does: per table, its rows as text in a fixed order (SQLite and
 * PostgreSQL), or its row count with the XOR of each row's MD5 (MySQL and MariaDB, whose
 * GROUP_CONCAT is cut at `group_concat_max_len`), and the list of tables itself. It is built once
 * from the tables and columns there are; a sweep of thousands of calls then reads the database in
 * one round trip a call instead of one a table.
 */
async function fingerprintStatement(kernel: Kernel, skip?: RegExp): Promise<string> {
  const { statements, type } = kernel.storage;
  const { tables, quote } = dialect(type);
  const names: string[] = [];
  for (const row of await statements.run(tables, [], 'all')) {
    const { name } = row as Record<string, unknown>;
    if (typeof name === 'string' && !/audit/.test(name) && !skip?.test(name)) names.push(name);
  }
  if (names.length === 0) throw new Error('databaseFingerprint: no tables found (the check would pass vacuously)');
  const columnsOf = async (sql: string, table: string) =>
    (await statements.run(sql, [table], 'all')).map((r) => quote(String((r as Record<string, unknown>).name)));
  const parts: string[] = [];
  switch (type) {
    case 'sqlite':
    case 'libsql':
      parts.push(`(SELECT group_concat(name) FROM (${tables}))`);
      for (const name of names) {
        const row = (await columnsOf('SELECT name FROM pragma_table_info(?)', name))
          .map((c) => `quote(${c})`)
          .join(" || ',' || ");
        parts.push(`(SELECT group_concat(r, char(10)) FROM (SELECT ${row} AS r FROM ${quote(name)} ORDER BY r))`);
      }
      break;
    case 'postgres':
      parts.push(`(SELECT string_agg(name, ',') FROM (${tables}) n)`);
      for (const name of names)
        parts.push(`(SELECT string_agg(x::text, E'\\n' ORDER BY x::text) FROM ${quote(name)} x)`);
      break;
    default: {
      parts.push(`(SELECT GROUP_CONCAT(name) FROM (${tables}) n)`);
      const sql =
        'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = database() AND table_name = ? ORDER BY ordinal_position';
      for (const name of names) {
        const row = (await columnsOf(sql, name)).map((c) => `QUOTE(${c})`).join(', ');
        parts.push(
          `(SELECT CONCAT(COUNT(*), ':', COALESCE(BIT_XOR(CONV(LEFT(MD5(CONCAT_WS(',', ${row})), 16), 16, 10)), 0)) FROM ${quote(name)})`,
        );
      }
    }
  }
  return `SELECT ${parts.map((p, i) => `${p} AS p${i}`).join(', ')}`;
}

export interface WriteWatch {
  /**
   * Runs `call`. For a call that may write, also tells whether it changed the database when
   * `refused(outcome)` holds (a refused call must not have).
   */
  run<T>(
    mayWrite: boolean,
    call: () => Promise<T>,
    refused: (outcome: T) => boolean,
  ): Promise<{ outcome: T; changed: boolean }>;
}

/**
 * Snapshots for a series of calls: one taken after a call that may write serves as the next
 * one's "before", so a sweep of thousands of calls reads the database once a call rather than
 * twice, and a snapshot is one statement (fingerprintStatement), not a query a table.
 * Any other call drops it, so nothing between two snapshots goes unseen.
 */
export function writeWatch(kernel: Kernel, skip?: RegExp): WriteWatch {
  let known: string | undefined;
  let statement: Promise<string> | undefined;
  const snapshot = async () => {
    statement ??= fingerprintStatement(kernel, skip);
    const [row] = await kernel.storage.statements.run(await statement, [], 'all');
    return JSON.stringify(row);
  };
  return {
    async run(mayWrite, call, refused) {
      if (!mayWrite) {
        known = undefined;
        return { outcome: await call(), changed: false };
      }
      const before = known ?? (await snapshot());
      const outcome = await call();
      known = await snapshot();
      return { outcome, changed: refused(outcome) && known !== before };
    },
  };
}
