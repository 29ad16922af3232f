/**
 * Child process for orm-async-context.test.ts (tap itself keeps async hooks on in its own
 * process, which would hide what is measured): opens the storage named by argv[2] (flags as JSON),
 * runs transactions and a flush, and prints one JSON line of observations.
 */
import { AsyncLocalStorage, executionAsyncResource } from 'node:async_hooks';
import { RequestContext, TransactionContext, type EntityManager } from '@mikro-orm/core';
import { Config } from '../../core/config.js';
import { openStorage } from '../../storage/index.js';

/** In a continuation after `await`, Node reports the promise as the resource only while promise hooks are on. */
const promiseHooksOn = async (): Promise<boolean> => {
  await null;
  return executionAsyncResource() instanceof Promise;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const nodeRun = AsyncLocalStorage.prototype.run;
const nodeEnterWith = AsyncLocalStorage.prototype.enterWith;
const out: Record<string, unknown> = { before: await promiseHooksOn() };
const storage = await openStorage(new Config(JSON.parse(process.argv[2] ?? '{}') as Record<string, string>), []);
try {
  const em = storage.orm.em.fork();
  await em.transactional(async () => {
    out.insideTransaction = await promiseHooksOn();
  });
  await em.flush();
  out.afterTransactionAndFlush = await promiseHooksOn();

  // Interleaved where the pool allows it (SQLite has one connection and runs them in turn).
  const seen: Record<string, boolean> = {};
  const slow = em.transactional(async (outer: EntityManager) => {
    await sleep(40);
    seen.slow = TransactionContext.getEntityManager() === outer;
    await outer.transactional(async (inner: EntityManager) => {
      await sleep(1);
      seen.nested = TransactionContext.getEntityManager() === inner;
    });
    seen.slowAfterNested = TransactionContext.getEntityManager() === outer;
  });
  const quick = em.transactional(async (mine: EntityManager) => {
    await sleep(5);
    seen.quick = TransactionContext.getEntityManager() === mine;
  });
  await Promise.all([slow, quick]);
  out.seen = seen;
  out.contextOutside = TransactionContext.getEntityManager() !== undefined;
  out.afterConcurrent = await promiseHooksOn();

  out.failedRejects = await em
    .transactional(async () => {
      await sleep(1);
      throw new Error('rolled back');
    })
    .then(
      () => false,
      (err: Error) => err.message === 'rolled back',
    );
  out.afterFailure = await promiseHooksOn();

  // Express-style middleware: RequestContext.create(em, next) returns at once and the request's
  // work reads the context (a fork of requestFork) later; that storage must keep Node's behaviour.
  const requestFork = storage.orm.em.fork();
  out.requestContextLater = await new Promise((resolve) =>
    RequestContext.create(requestFork, () => {
      setTimeout(() => resolve(RequestContext.getEntityManager() !== undefined), 5);
    }),
  );
  const als = new AsyncLocalStorage<number>();
  out.otherStorageAfterRun = await new Promise((resolve) =>
    als.run(7, () => setTimeout(() => resolve(als.getStore()), 5)),
  );
  out.prototypeUntouched =
    AsyncLocalStorage.prototype.run === nodeRun && AsyncLocalStorage.prototype.enterWith === nodeEnterWith;
} finally {
  await storage.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
