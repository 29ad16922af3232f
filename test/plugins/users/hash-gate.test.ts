/**
 * The per-account gate of password checks (plugins/users/hash-gate.ts): places by the failure
 * count, waiters woken one at a time and oldest first, the wake passed on while room is left or
 * when a waiter leaves without using it, and the poll that finds a lock set elsewhere.
 */
import t from 'tap';
import { AccountHashGate, type GateEntry } from '../../../plugins/users/hash-gate.js';

const LIMIT = 5;
const LONG_POLL = 10_000;
const tick = () => new Promise((r) => setImmediate(r));
const later = () => Date.now() + 60_000;
/** A failure count the test moves, read as the memory store would be (asynchronously). */
const counter = (initial = 0) => {
  const state = { failures: initial, reads: 0 };
  const read = async () => {
    state.reads++;
    return state.failures;
  };
  return { state, read };
};
/** Calls of `enter` that record, in order, which of them has answered and what. */
const line = (gate: AccountHashGate, read: () => Promise<number>, n: number, settleBy = later()) => {
  const answered: string[] = [];
  const entries = Array.from({ length: n }, (_, i) =>
    gate.enter('a', read, settleBy).then((entry: GateEntry) => {
      answered.push(`${i}:${typeof entry === 'string' ? entry : 'entered'}`);
      return entry;
    }),
  );
  return { answered, entries };
};
const fill = async (gate: AccountHashGate, read: () => Promise<number>, n: number) => {
  for (let i = 0; i < n; i++) await gate.enter('a', read, later());
};

t.test('places: the limit less the failures so far', async (t) => {
  const gate = new AccountHashGate(LIMIT, LONG_POLL);
  const { read } = counter(2);
  const got = await Promise.all([1, 2, 3].map(() => gate.enter('a', read, later())));
  t.same(got, [{ failures: 2 }, { failures: 2 }, { failures: 2 }], 'two failures leave three places');
  t.equal(await gate.enter('a', read, Date.now() - 1), 'busy', 'the fourth is refused once past its deadline');
  t.equal(gate.waitingOf('a'), 0, 'and is not left in line');
  t.same(await gate.enter('b', read, later()), { failures: 2 }, 'another account has its own places');
  gate.leave('a');
  t.equal(gate.runningOf('a'), 2);
  t.same(await gate.enter('a', read, Date.now() - 1), { failures: 2 }, 'a settled check frees its place');
  for (let i = 0; i < 3; i++) gate.leave('a');
  t.equal(gate.runningOf('a'), 0, 'nothing left running');
  gate.leave('a');
  t.equal(gate.runningOf('a'), 0, 'a leave with nothing running does not go below none');
  t.equal(await gate.enter('a', async () => LIMIT, later()), 'locked', 'a full count is a lock');
});

t.test('a settle wakes the oldest waiter only', async (t) => {
  const gate = new AccountHashGate(LIMIT, LONG_POLL);
  const { state, read } = counter();
  await fill(gate, read, LIMIT);
  const { answered } = line(gate, read, 3);
  await tick();
  t.equal(gate.waitingOf('a'), 3);
  const readsBefore = state.reads;
  gate.leave('a');
  await tick();
  t.same(answered, ['0:entered'], 'one place, one waiter woken: the first in line');
  t.equal(state.reads - readsBefore, 1, 'the others did not read the count');
  t.equal(gate.waitingOf('a'), 2);
  gate.leave('a');
  gate.leave('a');
  await tick();
  t.same(answered, ['0:entered', '1:entered', '2:entered'], 'then the others, in order');
});

t.test('a place taken with room left passes the wake on', async (t) => {
  const gate = new AccountHashGate(LIMIT, LONG_POLL);
  // Two failures so far: three places, all taken.
  const { state, read } = counter(2);
  await fill(gate, read, 3);
  const { answered } = line(gate, read, 3);
  await tick();
  // The check that settles was a success and cleared the count: five places, two taken.
  state.failures = 0;
  gate.leave('a');
  await tick();
  t.same(answered, ['0:entered', '1:entered', '2:entered'], 'each waiter that took a place woke the next');
  t.equal(gate.runningOf('a'), 5);
  t.equal(await gate.enter('a', read, Date.now() - 1), 'busy', 'the gate is full');
});

t.test('a place taken that was the last wakes nobody', async (t) => {
  const gate = new AccountHashGate(LIMIT, LONG_POLL);
  const { read } = counter();
  await fill(gate, read, LIMIT);
  const { answered } = line(gate, read, 2);
  await tick();
  gate.leave('a');
  await tick();
  t.same(answered, ['0:entered'], 'the second waits for the next settle');
  t.equal(gate.waitingOf('a'), 1);
  gate.leave('a');
  await tick();
  t.same(answered, ['0:entered', '1:entered']);
});

t.test('a lock reaches every waiter at once, each passing the wake on', async (t) => {
  const gate = new AccountHashGate(LIMIT, LONG_POLL);
  const { state, read } = counter();
  await fill(gate, read, LIMIT);
  const { answered } = line(gate, read, 3);
  await tick();
  // The settling check was the fifth failure.
  state.failures = LIMIT;
  gate.leave('a');
  await tick();
  t.same(answered, ['0:locked', '1:locked', '2:locked'], 'refused without waiting for their polls');
  t.equal(gate.waitingOf('a'), 0);
});

t.test('a waiter whose count read fails passes its turn on', async (t) => {
  const gate = new AccountHashGate(1, LONG_POLL);
  const { read } = counter();
  await fill(gate, read, 1);
  let fail = false;
  const failing = gate.enter(
    'a',
    async () => {
      if (fail) throw new Error('store down');
      return 0;
    },
    later(),
  );
  const { answered } = line(gate, read, 1);
  await tick();
  fail = true;
  gate.leave('a');
  await t.rejects(failing, { message: 'store down' }, 'the failed read reaches the caller');
  await tick();
  t.same(answered, ['0:entered'], 'and the one behind it got the place');
});

t.test('a waiter that lost its place to a newcomer keeps the head of the line', async (t) => {
  const gate = new AccountHashGate(1, LONG_POLL);
  const { read } = counter();
  await fill(gate, read, 1);
  // The early waiter's reads are held by the test, so a newcomer can come between its wake and its look.
  let release: (() => void) | undefined;
  let early = 0;
  const earlyEntry = gate.enter(
    'a',
    () => (early++ === 1 ? new Promise<number>((r) => (release = () => r(0))) : Promise.resolve(0)),
    later(),
  );
  await tick();
  const { answered } = line(gate, read, 1);
  await tick();
  t.equal(gate.waitingOf('a'), 2, 'early and late in line');
  gate.leave('a');
  await tick();
  t.ok(release, 'the early waiter was woken and is reading the count');
  t.same(await gate.enter('a', read, later()), { failures: 0 }, 'a newcomer takes the free place first');
  release?.();
  await tick();
  t.equal(gate.waitingOf('a'), 2, 'the early waiter found no room and queued again');
  gate.leave('a');
  t.same(await earlyEntry, { failures: 0 }, 'it is woken before the one behind it');
  await tick();
  t.same(answered, [], 'which still waits');
  gate.leave('a');
  await tick();
  t.same(answered, ['0:entered']);
});

t.test('a waiter looks again on its own every poll: a lock set by another node reaches it', async (t) => {
  const gate = new AccountHashGate(1, 20);
  const { state, read } = counter();
  await fill(gate, read, 1);
  const started = performance.now();
  const entry = gate.enter('a', read, later());
  await new Promise((r) => setTimeout(r, 70));
  t.ok(state.reads >= 3, `it read the count again with no settle (${state.reads} reads)`);
  state.failures = 1;
  t.equal(await entry, 'locked');
  t.ok(performance.now() - started >= 70, 'after the polls');
  t.equal(gate.waitingOf('a'), 0, 'no longer in line');
  gate.leave('a');
  t.equal(gate.runningOf('a'), 0);
});
