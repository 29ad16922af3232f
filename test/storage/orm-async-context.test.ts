/**
 * MikroORM's AsyncLocalStorage instances are disabled once none of their runs is in progress
 * (storage/orm-async-context.ts), so promise hooks do not stay on for the life of the process,
 * while transactions still see their own context (concurrent, nested, failed) and other
 * AsyncLocalStorage instances keep Node's behaviour. On every SQL database, each in a child
 * process (orm-async-context-probe.ts) because tap keeps async hooks on in its own.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { databaseTargets } from '../helpers/databases.js';

const probe = fileURLToPath(new URL('./orm-async-context-probe.ts', import.meta.url));
const targets = await databaseTargets();
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`on ${target.name}`, async (t) => {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', probe, JSON.stringify(target.flags)],
        { timeout: 60_000 },
        (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
      ),
    );
    const seen = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    t.equal(seen.before, false, 'promise hooks are off in a fresh process');
    t.equal(seen.insideTransaction, true, 'on while a transaction runs: MikroORM needs its context there');
    t.equal(seen.afterTransactionAndFlush, false, 'off again once the transaction and the flush are over');
    t.strictSame(
      seen.seen,
      { quick: true, slow: true, nested: true, slowAfterNested: true },
      'each transaction sees its own entity manager',
    );
    t.equal(seen.contextOutside, false, 'no transaction context outside them');
    t.equal(seen.afterConcurrent, false);
    t.equal(seen.failedRejects, true, 'a failed transaction rejects with its error');
    t.equal(seen.afterFailure, false, 'and releases its context too');
    t.equal(
      seen.requestContextLater,
      true,
      "MikroORM's RequestContext middleware style keeps working (work after next() sees the context)",
    );
    t.equal(
      seen.otherStorageAfterRun,
      7,
      "another AsyncLocalStorage keeps Node's behaviour (a timer started in run sees the store)",
    );
  });
}
