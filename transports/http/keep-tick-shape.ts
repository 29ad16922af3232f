/**
 * Keeps one of Node's tick objects (what `process.nextTick` queues) alive for the life of the
 * process, so that V8 keeps their object shapes.
 *
 * Why: Node's `nextTick` builds each tick object from a literal with two computed symbol keys
 * (`{[async_id_symbol]: ..., [trigger_async_id_symbol]: ..., callback, args}`). V8 holds the
 * shapes (maps) of those objects weakly; a full garbage collection taken while no tick object is
 * alive (between requests, when the queue has drained) frees them, the next call makes new ones,
 * and after a few such rounds the literal's call site has seen too many shapes and every key is
 * defined through V8's runtime instead of inline. Node's http and stream code calls `nextTick`
 * five times per request: in a long-running server each call cost 2.9-4.3k machine instructions
 * against ~400 in a fresh one (bench/profiling/callgrind-requests.ts, session 39), and in a
 * loop, 20 full collections with no tick object alive made a call ~6x dearer (~100 against
 * ~700 ns), which one object kept alive prevented. A live object keeps its shape and every shape
 * before it on the chain, so the site stays with one.
 *
 * The object is caught with an async_hooks init hook that is on only for one `nextTick` call of
 * our own, here, at startup; a Node that does not report tick objects leaves nothing kept.
 */
import { createHook } from 'node:async_hooks';

let kept: object | undefined;
let tried = false;
/** How many async resources the hook was told of: it must stop growing once the call is done. */
let seen = 0;

/** Catches and keeps one tick object (once per process; later calls do nothing). */
export function keepTickObjectShape(): void {
  if (tried) return;
  tried = true;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      seen++;
      if (type === 'TickObject' && kept === undefined) kept = resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
}

/** The tick object kept, if one was caught (for tests). */
export const keptTickObject = (): object | undefined => kept;

/** The async resources the hook saw (for tests: a hook left on would count every later one). */
export const resourcesSeen = (): number => seen;

function noop(): void {}
