/**
 * Rows added to a table by one fixed INSERT statement (SQL databases), for a table written on a
 * hot path and never read back there: the audit log, which gets a row with every sign-in.
 *
 * Why not MikroORM's unit of work: a fork, `create` and `flush` per row is a change-set
 * computation, a transaction opened and closed and a query built by knex, all in code that runs
 * once per login; the text here is built once per row count from the entity's metadata (names
 * quoted by the platform) and run with bound values (a kept prepared statement on SQLite,
 * storage/sqlite-statements.ts). The write stays durable when it returns, as every write that is
 * not a new session is.
 *
 * On a SQLite file the statement counts as an own write that no kept read depends on
 * (storage/sqlite-change-stamp.ts, "Own writes"): when it was the only commit since the stamp was
 * last read, the users and sessions kept in process stay good, since it touched neither. Before,
 * each login's audit row made every kept read stale, and the next login read its user and its
 * session marks from SQLite again. Only tables that no kept read comes from may be written
 * through here.
 */
import type { Storage } from '../core/storage.js';
import { runOwnWrite } from './own-write.js';

/** Adds the rows (objects keyed by the entity's property names) with one statement. */
export type AppendRows = (rows: readonly object[]) => Promise<void>;

export function rowAppender(storage: Storage, entityName: string): AppendRows {
  if (!storage.isSql) throw new Error('rowAppender needs a SQL database');
  /** The columns, and the statement's text by row count; worked out at the first write. */
  let shape: { names: string[]; head: string; tuple: string; texts: Map<number, string> } | undefined;
  const shapeOf = () => {
    if (shape) return shape;
    const meta = storage.orm.em.getMetadata().get(entityName);
    const q = (name: string) => storage.orm.em.getPlatform().quoteIdentifier(name);
    const props = meta.props.filter((p) => p.fieldNames?.length === 1 && p.persist !== false);
    return (shape = {
      names: props.map((p) => p.name),
      head: `insert into ${q(meta.tableName)} (${props.map((p) => q(p.fieldNames[0])).join(', ')}) values `,
      tuple: `(${props.map(() => '?').join(', ')})`,
      texts: new Map(),
    });
  };
  const textFor = (count: number): string => {
    const { head, tuple, texts } = shapeOf();
    let sql = texts.get(count);
    if (sql === undefined) {
      sql = head + Array.from({ length: count }, () => tuple).join(', ');
      texts.set(count, sql);
    }
    return sql;
  };
  const changes = storage.changeStamp;
  return async (rows) => {
    if (rows.length === 0) return;
    const { names } = shapeOf();
    const params: unknown[] = [];
    for (const row of rows) for (const name of names) params.push((row as Record<string, unknown>)[name] ?? null);
    await runOwnWrite(changes, undefined, (around) =>
      storage.statements.run(textFor(rows.length), params, 'run', { around }),
    );
  };
}
