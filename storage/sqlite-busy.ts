/**
 * A SQLite connection on which a statement failed with SQLITE_BUSY is closed and replaced, never
 * used again.
 *
 * Why: a write that waits for another connection's write lock (another process or node on the
 * same file) longer than the busy timeout (drivers.ts) fails with SQLITE_BUSY, and SQLite leaves
 * that statement running, not reset, so that it can be stepped again (sqlite3_step: after
 * SQLITE_BUSY outside an explicit transaction "you can retry the statement"). While it runs the
 * connection counts a write in progress, and that breaks the connection's next work (libsql
 * 0.5.29, two connections on one file in WAL mode):
 * - its next COMMIT fails with "cannot commit transaction - SQL statements in progress";
 * - an autocommit write after it reports its rows as written but is not committed: it stays in
 *   an open transaction that keeps the file's write lock from every other process, and is rolled
 *   back when the failed statement is at last reset or finalized.
 * The driver gives no way to end that statement: libsql resets a statement only at the start of
 * its next run (which is the write again) and has no reset or finalize call, and a statement
 * knex prepared for one query is finalized only when the garbage collector takes it, at no known
 * time. (MikroORM's libsql dialect also replaces a connection older than 10 s when it is next
 * taken from the pool, which hides the defect whenever the connection happened to be old.)
 *
 * So every SQLITE_BUSY spends the connections open at that moment (knex reports each failed
 * query with its `query-error` event; the kept statements of sqlite-statements.ts report their
 * own), and the pool's `validate` (a knex pool option, asked before a pooled connection is handed
 * out) refuses a spent connection: the pool closes it and opens a new one. SQLite has one pooled
 * connection per process (drivers.ts), so the one spent is the one that failed; what the failed
 * unit still runs on it before giving it back (a transaction's ROLLBACK) runs as before. libsql
 * lets go of a closed connection once its last statement is gone; until then it holds no write
 * lock (the failed statement never got it, a ROLLBACK released a transaction's), at most the read
 * snapshot of a rolled-back transaction, which only holds back a full checkpoint. An in-memory
 * database lives in its one connection and is never dropped (no other connection can hold its
 * lock).
 *
 * The busy error itself reaches the caller: a request answers 503 `unavailable` (core/errors.ts),
 * and the client may try again.
 */
import { isSqliteBusy } from '../core/errors.js';

interface EventSource {
  on(event: 'query-error', listener: (err: unknown) => void): unknown;
}

export class SqliteBusyGuard {
  /** Connections opened so far; each gets its number when opened. */
  private opened = 0;
  /** Connections numbered up to this one are spent. */
  private spentUpTo = 0;
  private readonly numbers = new WeakMap<object, number>();

  /** The knex pool options (`afterCreate` numbers each new connection, `validate` refuses spent ones). */
  poolOptions() {
    return {
      afterCreate: (connection: object, done: (err: Error | null, connection: object) => void) => {
        this.numbers.set(connection, ++this.opened);
        done(null, connection);
      },
      validate: (connection: object): boolean => {
        if ((connection as { memory?: boolean }).memory) return true;
        const n = this.numbers.get(connection);
        return n === undefined || n > this.spentUpTo;
      },
    };
  }

  /** Listens to the ORM's knex instance for failed queries. */
  watch(knex: EventSource): void {
    knex.on('query-error', (err) => this.check(err));
  }

  /** Spends the open connections when `err` is SQLITE_BUSY. */
  check(err: unknown): void {
    if (isSqliteBusy(err)) this.spentUpTo = this.opened;
  }
}
