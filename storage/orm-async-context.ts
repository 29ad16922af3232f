/**
 * Keeps MikroORM's AsyncLocalStorage instances from leaving Node's promise hooks on for good.
 *
 * MikroORM runs `flush()`, `findAndCount()` and transactions inside `AsyncLocalStorage.run`. On
 * Node 20 the first `run` of any instance turns on promise hooks for the whole process, and they
 * stay on until every instance is disabled, which MikroORM never does: from the first write on,
 * every promise of every request pays for the hooks. Measured: about 10% of the server CPU of
 * every HTTP request (README, "Where the build departs from DESIGN.md").
 *
 * So the instances MikroORM creates are disabled again once no `run` of theirs is in progress.
 * MikroORM's own operations enter them with `run` and get back the promise of the whole operation
 * (flush, findAndCount, transactional), so when the last one settles no code can still read the
 * store; a later `run` enables the instance again, as `run` always does. Instances are recognised
 * by where their first `run` is called from (MikroORM's own files). An instance is left to Node
 * for good as soon as it is entered with `enterWith`, or a run of it returns something other than
 * a promise (work it started may outlive the call: MikroORM's RequestContext middleware). Every
 * other AsyncLocalStorage in the process, an embedding application's included, keeps Node's
 * behaviour. Node 22's AsyncContextFrame removes the cost itself; there this does no harm.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Usage {
  managed: boolean;
  active: number;
}

const usage = new WeakMap<AsyncLocalStorage<unknown>, Usage>();
const MIKRO_ORM_FRAME = /[\\/]@mikro-orm[\\/]/;
let installed = false;

/** Whether a promise-like result (MikroORM's runs return promises). */
const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  v !== null &&
  (typeof v === 'object' || typeof v === 'function') &&
  typeof (v as { then?: unknown }).then === 'function';

export function releaseOrmAsyncContextsWhenIdle(): void {
  if (installed) return;
  installed = true;
  const run = AsyncLocalStorage.prototype.run;
  function managedRun<R, TArgs extends unknown[]>(
    this: AsyncLocalStorage<unknown>,
    store: unknown,
    callback: (...args: TArgs) => R,
    ...args: TArgs
  ): R {
    let u = usage.get(this);
    if (!u) {
      u = { managed: MIKRO_ORM_FRAME.test(new Error().stack ?? ''), active: 0 };
      usage.set(this, u);
    }
    if (!u.managed) return run.call(this, store, callback, ...args) as R;
    const self = this;
    const state = u;
    const release = (): void => {
      if (--state.active === 0 && state.managed) self.disable();
    };
    state.active++;
    let result: R;
    try {
      result = run.call(this, store, callback, ...args) as R;
    } catch (err) {
      release();
      throw err;
    }
    if (!isThenable(result)) {
      // A run that returns at once may have started work that still reads the store (MikroORM's
      // RequestContext.create(em, next) in an Express-style middleware does): that instance is
      // left to Node from now on, never disabled.
      state.managed = false;
      state.active--;
      return result;
    }
    return Promise.resolve(result).then(
      (value) => {
        release();
        return value;
      },
      (err: unknown) => {
        release();
        throw err;
      },
    ) as R;
  }
  AsyncLocalStorage.prototype.run = managedRun as typeof AsyncLocalStorage.prototype.run;
  // An instance entered with enterWith has no end to wait for: from then on it is never disabled.
  const enterWith = AsyncLocalStorage.prototype.enterWith;
  AsyncLocalStorage.prototype.enterWith = function enterWithUnmanaged(
    this: AsyncLocalStorage<unknown>,
    store: unknown,
  ): void {
    usage.set(this, { managed: false, active: 0 });
    enterWith.call(this, store);
  };
}
