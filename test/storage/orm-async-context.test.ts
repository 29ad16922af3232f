/**
 * MikroORM's context (transactions, RequestContext) on Node's own AsyncLocalStorage: since Node 24
 * an AsyncLocalStorage is carried by the AsyncContextFrame, without promise hooks, so nothing in
 * the storage layer replaces or wraps `AsyncLocalStorage.prototype` and no promise hook is ever
 * turned on, not even while a transaction runs. Transactions still see their own context
 * (concurrent, nested, failed). On every SQL database, each in a child process
 * (orm-async-context-probe.ts) because tap keeps async hooks on in its own.
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
    t.equal(seen.insideTransaction, false, 'and stay off while a transaction runs (AsyncContextFrame)');
    t.equal(seen.afterTransactionAndFlush, false, 'and after it');
    t.strictSame(
      seen.seen,
      { quick: true, slow: true, nested: true, slowAfterNested: true },
      'each transaction sees its own entity manager',
    );
    t.equal(seen.contextOutside, false, 'no transaction context outside them');
    t.equal(seen.afterConcurrent, false);
    t.equal(seen.failedRejects, true, 'a failed transaction rejects with its error');
    t.equal(seen.afterFailure, false);
    t.equal(
      seen.requestContextLater,
      true,
      "MikroORM's RequestContext middleware style works (work after next() sees the context)",
    );
    t.equal(seen.otherStorageAfterRun, 7, 'another AsyncLocalStorage sees its store in a timer started in run');
    t.equal(seen.prototypeUntouched, true, "AsyncLocalStorage.prototype keeps Node's run and enterWith");
  });
}
