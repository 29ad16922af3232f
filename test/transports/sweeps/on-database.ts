/**
 * Where the bad-input sweeps run (rest-graphql-sweep.ts, grpc-sweep.ts): a server on one
 * database, the binary's default memory store (`database`) included, so bad input also goes
 * through its keys and rows. One test file per sweep, surface and database: a file holding all
 * three databases came within tap's file timeout on a loaded machine, and one holding REST and
 * GraphQL together was the last file running, alone, at the end of the suite.
 *
 * Which database: every transport on SQLite; on PostgreSQL and MariaDB, which enforce column types
 * and lengths that SQLite does not (input the checks let through could fail there alone, as a 5xx
 * or a half-made record), REST for every operation it carries and GraphQL for the rest. What a
 * call does to the database does not depend on the transport it came by: every transport hands
 * the same operation the same JSON input, and REST sends every value the other two
 * can. Their own decoding is swept on SQLite. (All three transports on all three databases took
 * ~3 of the suite's minutes.) On PostgreSQL and MariaDB a field of a REST body is also tried only
 * with the wrong values of its own JSON type (null included), the ones that can get past the input
 * check: a value of another type is refused by that check before the operation runs a statement,
 * the same way on every database, and SQLite's sweep sends every such value (REST on PostgreSQL went from
 * ~12,000 calls to ~5,300, and from 256 s to 179 s at a load of 13-15).
 */
import t, { type Test } from 'tap';
import type { FlagValue } from '../../../core/config.js';
import { MEMORY_TABLE } from '../../../storage/entities/memory-entry.js';
import { writeWatch, type WriteWatch } from '../../helpers/database-text.js';
import { databaseTarget, type DbName } from '../../helpers/databases.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** The memory store's table is left out of the snapshots: a refused login counts a failure there on purpose (five lock the account). */
const MEMORY_TABLE_NAME = new RegExp(`^${MEMORY_TABLE}$`);

/**
 * Runs `sweep` against a fresh server on `name` (skipped when it is unreachable outside CI:
 * databaseTarget throws there), with `flags` beside the memory store's.
 */
export async function onDatabase(
  name: DbName,
  title: string,
  sweep: (t: Test, server: TestServer, watch: WriteWatch) => Promise<void>,
  flags: Record<string, FlagValue> = {},
): Promise<void> {
  const target = await databaseTarget(name);
  if (!target) {
    t.test(`on ${name}: ${title}`, { skip: `${name} is not reachable` }, async () => {});
    return;
  }
  t.test(`on ${name}: ${title}`, async (t) => {
    // The write check's snapshot reads every table in one statement, thousands of times: on a
    // loaded machine one can take longer than the 2 s --database-timeout-ms allows while serving,
    // which would fail the sweep for the machine's load, not for an answer.
    const server = await startTestServer({
      database: target,
      flags: { ...flags, 'memory-store': 'database', 'database-timeout-ms': 30_000 },
    });
    t.teardown(async () => {
      await server.close();
      await target.dispose();
    });
    await sweep(t, server, writeWatch(server.kernel, MEMORY_TABLE_NAME));
    // The sweeps send `__proto__` and `constructor.prototype` members; the server runs in this process.
    t.equal('polluted' in {}, false, 'no prototype was polluted');
  });
}
