/**
 * Prepared statements kept per SQLite connection, for the few queries every request runs (the
 * user point lookup at login, memory-store reads and writes of sessions).
 *
 * Why: MikroORM's `execute` inlines the parameter values into the SQL text and hands SQLite a new
 * statement to compile on every call; for a one-row read the compile was most of the cost
 * (~80 µs of ~130 µs measured in process, against ~30 µs with a kept statement). Here the SQL
 * text is fixed, the values are bound, and the statement is compiled once per connection. The
 * connection is borrowed from and returned to the ORM's own pool for each call (the knex
 * client's `acquireConnection`/`releaseConnection`, the pair knex's own runner calls; the pool's
 * internals are never read), so a transaction holding it is waited for, as for any other query.
 * Only the libsql driver (`sqlite`, `libsql`) takes this path; other databases run the same SQL
 * through MikroORM.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { StatementMethod, StatementOptions, StatementRunner } from '../core/storage.js';
import type { SqliteBusyGuard } from './sqlite-busy.js';
import type { WalSync } from './sqlite-wal-sync.js';

interface LibsqlStatement {
  get(params: unknown[]): unknown;
  all(params: unknown[]): unknown[];
  run(params: unknown[]): { changes: number };
}
interface LibsqlConnection {
  prepare(sql: string): LibsqlStatement;
}
interface KnexClient {
  acquireConnection(): Promise<LibsqlConnection>;
  releaseConnection(connection: LibsqlConnection): Promise<void>;
}

/** `PRAGMA synchronous` around a relaxed write (sqlite-wal-sync.ts); FULL is SQLite's default and every other write's. */
const RELAXED = 'pragma synchronous = normal';
const DURABLE = 'pragma synchronous = full';

/**
 * The runner for this ORM: kept statements on SQLite, MikroORM's `execute` elsewhere. `walSync`
 * (a SQLite file in WAL mode) lets writes asked to be relaxed commit without waiting for the disk.
 * `busy` is told of every failure: a statement that met SQLITE_BUSY stays running on its
 * connection, which is then replaced (sqlite-busy.ts).
 */
export function statementRunner(
  orm: MikroORM,
  usesLibsql: boolean,
  walSync?: WalSync,
  busy?: SqliteBusyGuard,
): StatementRunner {
  const connection = () =>
    orm.em.getConnection() as unknown as {
      execute(sql: string, params: unknown[], method: StatementMethod): Promise<unknown>;
      getKnex(): { client: KnexClient };
    };
  if (!usesLibsql) {
    return {
      run: async (sql, params, method) => {
        const out = await connection().execute(sql, params, method);
        if (method === 'run') return { affectedRows: (out as { affectedRows: number }).affectedRows } as never;
        return (method === 'get' ? (out ?? undefined) : out) as never;
      },
    };
  }
  const kept = new WeakMap<LibsqlConnection, Map<string, LibsqlStatement>>();
  const statementOn = (db: LibsqlConnection, sql: string): LibsqlStatement => {
    let byText = kept.get(db);
    if (!byText) {
      byText = new Map();
      kept.set(db, byText);
    }
    let st = byText.get(sql);
    if (!st) {
      st = db.prepare(sql);
      byText.set(sql, st);
    }
    return st;
  };
  const runOn = (db: LibsqlConnection, sql: string, params: unknown[], method: StatementMethod): unknown => {
    const st = statementOn(db, sql);
    if (method === 'get') return st.get(params) ?? undefined;
    if (method === 'all') return st.all(params);
    return { affectedRows: st.run(params).changes };
  };
  // Statements are synchronous, so nothing else runs on the connection between the two pragmas:
  // only this statement commits relaxed, and the connection is back to FULL whatever it threw.
  const runRelaxed = (db: LibsqlConnection, sql: string, params: unknown[], method: StatementMethod): unknown => {
    statementOn(db, RELAXED).run([]);
    try {
      return runOn(db, sql, params, method);
    } finally {
      statementOn(db, DURABLE).run([]);
      walSync?.committed();
    }
  };
  const pick = (options: StatementOptions | undefined) => {
    const exec = options?.relaxed && walSync?.available ? runRelaxed : runOn;
    const around = options?.around;
    if (!around) return exec;
    // Synchronous from `before` to `after`: nothing else of this process runs in between.
    return (db: LibsqlConnection, sql: string, params: unknown[], method: StatementMethod): unknown => {
      around.before();
      const out = exec(db, sql, params, method);
      around.after(method === 'run' ? (out as { affectedRows: number }).affectedRows : 0);
      return out;
    };
  };
  return {
    async run(sql, params, method, options) {
      const exec = pick(options);
      const client = connection().getKnex().client;
      const db = await client.acquireConnection();
      try {
        return exec(db, sql, params, method) as never;
      } catch (err) {
        busy?.check(err);
        throw err;
      } finally {
        await client.releaseConnection(db);
      }
    },
  };
}
