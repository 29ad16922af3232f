/**
 * The per-account gate of password checks (plugins/users/hash-gate.ts): places by the failure
 * count, waiters woken one at a time and oldest first, the wake passed on while room is left,
 * and the poll that finds a lock set elsewhere.
 */
import t from 'tap';
import { AccountHashGate } from '../../../plugins/users/hash-gate.js';

const LIMIT = 5;
const tick = () => new Promise((r) => setImmediate(r));

t.test('places: the limit less the failures so far', async (t) => {
  const gate = new AccountHashGate(LIMIT, 10_000);
  t.equal([1, 2, 3].filter(() => gate.tryEnter('a', 2)).length, 3, 'two failures leave three places');
  t.notOk(gate.tryEnter('a', 2), 'the fourth is refused');
  t.ok(gate.tryEnter('b', 0), 'another account has its own places');
  gate.leave('a');
  t.equal(gate.runningOf('a'), 2);
  t.ok(gate.tryEnter('a', 2), 'a settled check frees its place');
  for (let i = 0; i < 3; i++) gate.leave('a');
  t.equal(gate.runningOf('a'), 0, 'nothing left running');
});

t.test('a settle wakes the oldest waiter only', async (t) => {
  const gate = new AccountHashGate(LIMIT, 10_000);
  for (let i = 0; i < LIMIT; i++) t.ok(gate.tryEnter('a', 0));
  const woken: number[] = [];
  const waits = [0, 1, 2].map((n) => gate.wait('a').then((how) => woken.push(n) && how));
  t.equal(gate.waitingOf('a'), 3);
  gate.leave('a');
  await tick();
  t.same(woken, [0], 'one place, one waiter woken: the first in line');
  t.equal(gate.waitingOf('a'), 2);
  t.equal(await waits[0], 'turn');
  gate.leave('a');
  gate.leave('a');
  await tick();
  t.same(woken, [0, 1, 2], 'then the others, in order');
});

t.test('a place taken with room left passes the wake on', async (t) => {
  const gate = new AccountHashGate(LIMIT, 10_000);
  // Two failures so far: three places, all taken.
  for (let i = 0; i < 3; i++) t.ok(gate.tryEnter('a', 2));
  const woken: string[] = [];
  const first = gate.wait('a').then(() => woken.push('first'));
  void gate.wait('a').then(() => woken.push('second'));
  void gate.wait('a').then(() => woken.push('third'));
  gate.leave('a');
  await first;
  t.same(woken, ['first'], 'one settle wakes one waiter');
  // The check that settled was a success and cleared the count: taking a place leaves two.
  t.ok(gate.tryEnter('a', 0));
  await tick();
  t.same(woken, ['first', 'second'], 'so the next in line is woken at once');
  t.ok(gate.tryEnter('a', 0), 'it takes a place, one still free');
  await tick();
  t.same(woken, ['first', 'second', 'third'], 'and passes the wake to the third');
  t.ok(gate.tryEnter('a', 0), 'which takes the last one');
  t.equal(gate.runningOf('a'), 5);
  t.notOk(gate.tryEnter('a', 0), 'the gate is full');
});

t.test('a place taken that was the last wakes nobody', async (t) => {
  const gate = new AccountHashGate(LIMIT, 10_000);
  for (let i = 0; i < LIMIT; i++) gate.tryEnter('a', 0);
  const woken: string[] = [];
  const first = gate.wait('a').then(() => woken.push('first'));
  void gate.wait('a').then(() => woken.push('second'));
  gate.leave('a');
  await first;
  t.ok(gate.tryEnter('a', 0));
  await tick();
  t.same(woken, ['first'], 'the second waits for the next settle');
  t.equal(gate.waitingOf('a'), 1);
  gate.leave('a');
  await tick();
  t.same(woken, ['first', 'second']);
});

t.test('a waiter that lost its place to a newcomer keeps the head of the line', async (t) => {
  const gate = new AccountHashGate(1, 10_000);
  gate.tryEnter('a', 0);
  const order: string[] = [];
  const early = gate.wait('a');
  void gate.wait('a').then(() => order.push('late'));
  gate.leave('a');
  t.ok(gate.tryEnter('a', 0), 'a newcomer takes the free place first');
  t.equal(await early, 'turn');
  t.notOk(gate.tryEnter('a', 0), 'the woken waiter finds no room');
  void gate.wait('a', true).then(() => order.push('early'));
  gate.leave('a');
  await tick();
  t.same(order, ['early'], 'it is woken before the one behind it');
});

t.test('a waiter looks again on its own after the poll time, and leaves the line', async (t) => {
  const gate = new AccountHashGate(1, 20);
  gate.tryEnter('a', 0);
  const started = performance.now();
  t.equal(await gate.wait('a'), 'poll');
  t.ok(performance.now() - started >= 15, 'after about the poll time');
  t.equal(gate.waitingOf('a'), 0, 'no longer in line');
  gate.leave('a');
  t.equal(gate.runningOf('a'), 0);
});

t.test('passOn with nobody waiting does nothing', async (t) => {
  const gate = new AccountHashGate(LIMIT, 10_000);
  gate.passOn('a');
  t.equal(gate.waitingOf('a'), 0);
  t.equal(gate.runningOf('a'), 0);
});
