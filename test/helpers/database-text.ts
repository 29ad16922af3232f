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
 * twice (a snapshot is a query a table; the REST and GraphQL sweep took 63 s on PostgreSQL and
 * 60 s on MariaDB with two a call, 46 s and 41 s with this).
 * Any other call drops it, so nothing between two snapshots goes unseen.
 */
export function writeWatch(kernel: Kernel, skip?: RegExp): WriteWatch {
  let known: string | undefined;
  return {
    async run(mayWrite, call, refused) {
      if (!mayWrite) {
        known = undefined;
        return { outcome: await call(), changed: false };
      }
      const before = known ?? (await databaseText(kernel, skip));
      const outcome = await call();
      known = await databaseText(kernel, skip);
      return { outcome, changed: refused(outcome) && known !== before };
    },
  };
}
