/**
 * `--custom-access-token-script`: extra claims merged, reserved ones and the role claim refused,
 * and everything the script can run kept inside its time limit and its own context, per token.
 */
import t from 'tap';
import type { Logger } from '../../../core/logger.js';
import { compileCustomizer, MAX_CLAIMS_TEXT, SCRIPT_TIMEOUT_MS } from '../../../plugins/tokens/custom-claims.js';

const warnings: string[] = [];
const logger = {
  warn: (...args: unknown[]) => void warnings.push(JSON.stringify(args)),
  info() {},
  error() {},
  debug() {},
} as unknown as Logger;
const compile = (source: string) => compileCustomizer(source, 'role', logger)!;
const user = { id: 'u1', email: 'a@example.com' };

function timed<T>(fn: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

t.test('extra claims are merged; reserved claims and the role claim are not', async (t) => {
  const run = compile(
    'function (user, payload) { return { plan: "pro", email: user.email, sub: "x", iss: "x", exp: 1, sid: "x", role: ["admin"], roles: ["admin"], seen_sub: payload.sub } }',
  );
  t.same(run(user, { sub: 'u1' }), { plan: 'pro', email: 'a@example.com', seen_sub: 'u1' });
});

t.test('a result that is not an object adds nothing', async (t) => {
  for (const body of ['return 42', 'return "text"', 'return [1, 2]', 'return null', 'return undefined']) {
    t.same(compile(`function () { ${body} }`)(user, {}), {}, body);
  }
});

t.test('a script that loops or throws is stopped and adds nothing', async (t) => {
  for (const body of [
    'while (true) {}',
    'throw new Error("no")',
    'throw 42',
    'for (;;) { try { while (true) {} } finally { continue; } }',
  ]) {
    const { value, ms } = timed(() => compile(`function () { ${body} }`)(user, {}));
    t.same(value, {}, body);
    t.ok(ms < SCRIPT_TIMEOUT_MS * 20, `${body}: ${ms.toFixed(0)} ms`);
  }
});

t.test('a result larger than MAX_CLAIMS_TEXT adds nothing, and is never parsed by the host', async (t) => {
  const fits = compile(`function () { return { blob: "x".repeat(${MAX_CLAIMS_TEXT - 20}) } }`)(user, {});
  t.equal((fits.blob as string).length, MAX_CLAIMS_TEXT - 20, 'just under the bound: kept');
  warnings.length = 0;
  // A huge result must not be parsed outside the time limit (1.4 s per login at 256 MB).
  const over = compile(`function () { return { blob: "x".repeat(${MAX_CLAIMS_TEXT}) } }`)(user, {});
  t.same(over, {}, 'just over the bound: nothing');
  t.match(warnings.join(), /returned too much/);
  const { value, ms } = timed(() =>
    compile(
      'function () { const a = "x".repeat(1 << 20); const o = {}; for (let i = 0; i < 64; i++) o["k" + i] = a; return o; }',
    )(user, {}),
  );
  t.same(value, {}, '64 MB of JSON: nothing');
  t.ok(ms < 2000, `${ms.toFixed(0)} ms`);
});

t.test('a thrown value whose getters loop is never read outside the time limit', async (t) => {
  const bodies = [
    'throw { get message() { while (true) {} } }',
    'throw new Proxy({}, { get() { while (true) {} } })',
    'throw { toString() { while (true) {} } }',
  ];
  for (const body of bodies) {
    const { value, ms } = timed(() => compile(`function () { ${body} }`)(user, {}));
    t.same(value, {}, body);
    t.ok(ms < SCRIPT_TIMEOUT_MS * 20, `${body}: ${ms.toFixed(0)} ms`);
  }
});

t.test('a source cannot step out of the code that calls it', async (t) => {
  // Spliced into the wrapper's text, this closed its try block and threw a Proxy past it, whose
  // trap the host's `instanceof` then ran outside the limit. The source is now its own script.
  const spliced = `0); } catch (e) {} throw new Proxy({}, { getPrototypeOf() { while (true) {} } }); try { (0`;
  t.throws(
    () => compileCustomizer(spliced, 'role', logger),
    /does not compile/,
    'no longer compiles: the source must be one expression',
  );
  // An expression that throws while it is evaluated: the thrown value is not read by the host.
  const topLevel =
    '0, (() => { throw new Proxy({}, { getPrototypeOf() { while (true) {} }, get() { while (true) {} } }) })()';
  const { value, ms } = timed(() => compile(topLevel)(user, {}));
  t.same(value, {});
  t.ok(ms < SCRIPT_TIMEOUT_MS * 20, `${ms.toFixed(0)} ms`);
  const slowTop = timed(() => compile('(() => { while (true) {} })()')(user, {}));
  t.same(slowTop.value, {}, 'top-level code of the source counts against the limit');
  t.ok(slowTop.ms < SCRIPT_TIMEOUT_MS * 20, `${slowTop.ms.toFixed(0)} ms`);
  t.same(
    compile('function () { return { a: 1 } } // trailing comment')(user, {}),
    { a: 1 },
    'a trailing line comment still works',
  );
});

t.test('nothing the script leaves behind runs after it (FinalizationRegistry)', async (t) => {
  const probe = compile(
    'function () { return { finalization: typeof FinalizationRegistry, weakref: typeof WeakRef, atomics: typeof Atomics } }',
  );
  t.same(probe(user, {}), { finalization: 'undefined', weakref: 'undefined', atomics: 'undefined' });
  // The attack: a cleanup callback that V8 would call on the main thread after a garbage
  // collection, outside any limit. With the constructor gone the script fails and adds nothing.
  const run = compile(`function () {
    const r = new FinalizationRegistry(() => { const s = Date.now(); while (Date.now() - s < 2000) {} });
    for (let i = 0; i < 10; i++) r.register({ i }, i);
    const t = Date.now(); while (Date.now() - t < 30) new ArrayBuffer(64 * 1024 * 1024);
    return { ran: true };
  }`);
  t.same(run(user, {}), {});
  // The event loop stays free: no callback of the script's runs later.
  let maxGap = 0;
  let last = performance.now();
  await new Promise<void>((resolve) => {
    const started = last;
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      if (now - started > 1500) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
  });
  t.ok(maxGap < 1000, `longest event-loop gap ${maxGap.toFixed(0)} ms`);
});

t.test('no setter of the script runs when the host hands it its arguments', async (t) => {
  const { value, ms } = timed(() =>
    compile(
      '(Object.defineProperty(globalThis, "__fn", { set() { const s = Date.now(); while (Date.now() - s < 2000) {} }, get() { return () => ({ a: 1 }) } }), function () { return { a: 1 } })',
    )(user, {}),
  );
  t.same(value, {}, 'the redefinition fails inside the script: nothing added');
  t.ok(ms < SCRIPT_TIMEOUT_MS * 20, `${ms.toFixed(0)} ms`);
});

t.test('nothing is left over from one token to the next', async (t) => {
  const run = compile(
    'function (user) { const flat = typeof [].flat; Array.prototype.flat = null; globalThis.seen = (globalThis.seen || []).concat(user.email); return { seen: globalThis.seen, flat } }',
  );
  t.same(run({ email: 'first@example.com' }, {}), { seen: ['first@example.com'], flat: 'function' });
  t.same(
    run({ email: 'second@example.com' }, {}),
    { seen: ['second@example.com'], flat: 'function' },
    "the second user's token holds nothing of the first's, and built-ins are whole again",
  );
});

t.test('no flag, no customizer', async (t) => {
  t.equal(compileCustomizer(undefined, 'role', logger), null);
  t.equal(compileCustomizer('  ', 'role', logger), null);
});
