/**
 * Schema changes at boot, one process at a time. Two servers starting together against one new
 * PostgreSQL or MariaDB database both computed the same difference and both ran it: one of them
 * failed to start with "relation already exists" (or, dropping a stale unique rule, "does not
 * exist"), 4 boots of 4 on both databases. Holding a database-wide lock while
 * the schema is compared and changed makes the second process wait and then find nothing left to
 * do (a rolling deploy starts several nodes at once).
 *
 * The lock is a session lock (PostgreSQL `pg_advisory_lock`, MySQL/MariaDB `GET_LOCK`) held on a
 * connection of its own, taken from the pool and kept until the work is done; the work itself
 * runs on the pool's other connections (the pools of these drivers hold up to 10, drivers.ts).
 * A process that dies while holding it loses its session, and the lock with it. SQLite files are
 * serialized by SQLite's own write lock and MongoDB's index creation is idempotent: they take no
 * lock here.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { DatabaseType } from '../../core/storage.js';

/** Same number in every Latchkey process: "LKSC" (Latchkey schema) as a 32-bit integer. */
const POSTGRES_LOCK_KEY = 0x4c4b5343;
const MYSQL_LOCK_NAME = 'latchkey_schema';
/** How long a boot waits for another one's schema work before it gives up (seconds). */
export const SCHEMA_LOCK_WAIT_S = 120;

interface RawKnex {
  raw(sql: string, bindings: unknown[]): { connection(c: unknown): Promise<unknown> };
  client: { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };
}

function knexOf(orm: MikroORM): RawKnex {
  return (orm.em.getConnection() as unknown as { getKnex(): RawKnex }).getKnex();
}

/** The first row's first value of a raw result, whichever driver's shape it has. */
function firstValue(result: unknown): unknown {
  const rows = Array.isArray(result)
    ? Array.isArray(result[0])
      ? result[0]
      : result
    : (result as { rows?: unknown[] }).rows;
  const row = rows?.[0] as Record<string, unknown> | undefined;
  return row ? Object.values(row)[0] : undefined;
}

export async function withSchemaLock<T>(orm: MikroORM, type: DatabaseType, work: () => Promise<T>): Promise<T> {
  if (type !== 'postgres' && type !== 'mysql' && type !== 'mariadb') return work();
  const knex = knexOf(orm);
  const conn = await knex.client.acquireConnection();
  let lockName = MYSQL_LOCK_NAME;
  try {
    if (type === 'postgres') {
      // lock_timeout bounds the wait as GET_LOCK's argument does (reset before the connection goes back).
      await knex.raw(`set lock_timeout = '${SCHEMA_LOCK_WAIT_S}s'`, []).connection(conn);
      await knex.raw('select pg_advisory_lock(?)', [POSTGRES_LOCK_KEY]).connection(conn);
    } else {
      // GET_LOCK names are server-wide: the database's name keeps boots of other databases on
      // the same server from queueing behind this one. At most 64 characters.
      lockName = firstValue(
        await knex.raw(`select left(concat(?, database()), 64) as name`, [`${MYSQL_LOCK_NAME}:`]).connection(conn),
      ) as string;
      const got = firstValue(
        await knex.raw('select get_lock(?, ?) as got', [lockName, SCHEMA_LOCK_WAIT_S]).connection(conn),
      );
      if (Number(got) !== 1)
        throw new Error(`another process held the schema lock for more than ${SCHEMA_LOCK_WAIT_S} s`);
    }
    try {
      return await work();
    } finally {
      const unlock =
        type === 'postgres'
          ? knex.raw('select pg_advisory_unlock(?)', [POSTGRES_LOCK_KEY])
          : knex.raw('select release_lock(?)', [lockName]);
      await unlock.connection(conn).catch(() => {});
    }
  } finally {
    if (type === 'postgres')
      await knex
        .raw('reset lock_timeout', [])
        .connection(conn)
        .catch(() => {});
    await knex.client.releaseConnection(conn);
  }
}
