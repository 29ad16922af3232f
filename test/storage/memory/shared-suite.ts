/**
 * One behaviour suite every memory store backend must pass (core/memory-store.ts).
 * Races split their callers over every store handle given (`open` and `openPeer`), so a
 * backend shared between processes is tested across separate connections/pools, not only
 * within one.
 */
import type { Test } from 'tap';
import type { MemoryStore } from '../../../core/memory-store.js';

export interface MemorySuiteOptions {
  /** Opens the store under test (called once). */
  open: () => Promise<MemoryStore>;
  /** A second, independent handle on the same shared state (a second pool or client). */
  openPeer?: () => Promise<MemoryStore>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function memoryStoreSuite(t: Test, options: MemorySuiteOptions): void {
  let stores: MemoryStore[] = [];
  let store: MemoryStore;
  const pick = (i: number) => stores[i % stores.length];

  t.before(async () => {
    store = await options.open();
    stores = [store];
    if (options.openPeer) stores.push(await options.openPeer());
  });
  t.teardown(async () => {
    for (const s of stores) await s.deletePrefix('');
    for (const s of stores) await s.close();
  });

  t.test('get, set, replace and delete', async (t) => {
    t.equal(await store.get('gs:missing'), null, 'a missing key reads as null');
    await store.set('gs:a', 'first', 60_000);
    t.equal(await store.get('gs:a'), 'first');
    await store.set('gs:a', 'second', 60_000);
    t.equal(await store.get('gs:a'), 'second', 'set replaces');
    await store.delete('gs:a');
    t.equal(await store.get('gs:a'), null, 'deleted');
    await store.delete('gs:never');
    t.pass('deleting a missing key is fine');
  });

  t.test('keys are case-sensitive and values are kept exactly', async (t) => {
    const odd = 'ünïcode ✓ "quotes" \\ back\nslash and 100% _under_';
    await store.set('cs:Token', 'upper', 60_000);
    await store.set('cs:token', odd, 60_000);
    t.equal(await store.get('cs:Token'), 'upper');
    t.equal(await store.get('cs:token'), odd);
    t.same(await store.keys('cs:T'), ['cs:Token'], 'prefix match is case-sensitive');
  });

  t.test('values expire after their TTL', async (t) => {
    await store.set('ttl:a', 'v', 150);
    await store.increment('ttl:n', 150);
    t.equal(await store.get('ttl:a'), 'v', 'alive before the TTL');
    t.same(await store.keys('ttl:'), ['ttl:a', 'ttl:n']);
    await sleep(300);
    t.equal(await store.get('ttl:a'), null, 'gone after the TTL');
    t.equal(await store.consume('ttl:a'), null, 'an expired value cannot be consumed');
    t.same(await store.keys('ttl:'), [], 'expired keys are not listed');
    t.equal(await store.setIfAbsent('ttl:a', 'again', 60_000), true, 'an expired key counts as absent');
    t.equal(await store.get('ttl:a'), 'again');
    t.equal(await store.increment('ttl:n', 60_000), 1, 'an expired counter starts over');
  });

  t.test('setIfAbsent: 50 concurrent callers, exactly one stores', async (t) => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => pick(i).setIfAbsent('race:sia', `caller-${i}`, 60_000)),
    );
    const winners = results.flatMap((ok, i) => (ok ? [i] : []));
    t.equal(winners.length, 1, 'one winner');
    t.equal(await store.get('race:sia'), `caller-${winners[0]}`, 'the stored value is the winner’s');
    t.equal(await store.setIfAbsent('race:sia', 'late', 60_000), false, 'a live key is not replaced');
  });

  t.test('replace writes over a live value only: a deleted or expired key stays absent', async (t) => {
    t.equal(await store.replace('rep:a', 'x', 60_000), false, 'absent: nothing stored');
    t.equal(await store.get('rep:a'), null);
    await store.set('rep:a', 'one', 60_000);
    t.equal(await store.replace('rep:a', 'two', 60_000), true, 'live: replaced');
    t.equal(await store.get('rep:a'), 'two');
    await store.delete('rep:a');
    t.equal(await store.replace('rep:a', 'three', 60_000), false, 'deleted meanwhile: stays deleted');
    t.equal(await store.get('rep:a'), null);
  });

  t.test('consume: 50 concurrent consumers, exactly one gets the value', async (t) => {
    await store.set('race:consume', 'the-secret', 60_000);
    const got = await Promise.all(Array.from({ length: 50 }, (_, i) => pick(i).consume('race:consume')));
    const values = got.filter((v) => v !== null);
    t.same(values, ['the-secret'], 'one consumer got it, the rest got null');
    t.equal(await store.get('race:consume'), null, 'consumed values are gone');
  });

  t.test('increment: 100 concurrent increments count to 100, each value seen once', async (t) => {
    const seen = await Promise.all(Array.from({ length: 100 }, (_, i) => pick(i).increment('race:count', 60_000)));
    t.same(
      [...seen].sort((a, b) => a - b),
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    t.equal(await store.get('race:count'), '100', 'the counter reads as its count');
  });

  t.test('increment keeps a fixed window: later increments do not extend the TTL', async (t) => {
    t.equal(await store.increment('window:a', 400), 1);
    await sleep(250);
    t.equal(await store.increment('window:a', 400), 2, 'still inside the first window');
    await sleep(250);
    // 500 ms after the first increment: a sliding TTL would still be alive (250 ms since the last).
    t.equal(await store.get('window:a'), null, 'the window closed 400 ms after it opened');
    t.equal(await store.increment('window:a', 400), 1, 'a new window starts at 1');
  });

  t.test('keys and deletePrefix', async (t) => {
    await store.set('sess:u1:a', '1', 60_000);
    await store.set('sess:u1:b', '2', 60_000);
    await store.set('sess:u1:c', '3', 60_000);
    await store.set('sess:u10:a', '4', 60_000);
    await store.set('sess:u2:a', '5', 60_000);
    await store.set('lit:a_b%c*d?', '6', 60_000);
    await store.set('lit:aXbYcZd', '7', 60_000);
    t.same((await store.keys('sess:u1:')).sort(), ['sess:u1:a', 'sess:u1:b', 'sess:u1:c']);
    t.same(await store.keys('lit:a_b%c*'), ['lit:a_b%c*d?'], 'wildcard characters in a prefix match literally');
    t.same(await store.keys('nothing:'), []);
    t.equal(await store.deletePrefix('sess:u1:'), 3, 'returns how many went');
    t.same(await store.keys('sess:u1:'), []);
    t.same((await store.keys('sess:')).sort(), ['sess:u10:a', 'sess:u2:a'], 'other keys stay');
    t.equal(await store.deletePrefix('lit:a_b%'), 1);
    t.equal(await store.get('lit:aXbYcZd'), '7');
  });

  t.test('a TTL must be positive', async (t) => {
    await t.rejects(store.set('bad:ttl', 'v', 0));
    await t.rejects(store.increment('bad:ttl', -5));
  });
}
