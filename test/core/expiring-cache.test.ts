import t from 'tap';
import { ExpiringCache } from '../../core/expiring-cache.js';

t.test('an entry is answered until its deadline, then dropped', async (t) => {
  const c = new ExpiringCache<string, number>(10);
  c.set('a', 1, 100);
  t.equal(c.get('a', 99), 1);
  t.equal(c.get('a', 100), undefined, 'at the deadline it is gone');
  t.equal(c.size, 0, 'and no longer held');
  t.equal(c.get('a', 0), undefined, 'even for an earlier clock afterwards');
});

t.test('past max entries the oldest insertion goes first', async (t) => {
  const c = new ExpiringCache<string, number>(3);
  for (const [i, k] of ['a', 'b', 'c'].entries()) c.set(k, i, 1_000);
  c.set('d', 3, 1_000);
  t.equal(c.size, 3);
  t.equal(c.get('a', 0), undefined, 'the oldest was dropped');
  t.same(
    ['b', 'c', 'd'].map((k) => c.get(k, 0)),
    [1, 2, 3],
  );
  // Setting a key again replaces its value in place, without dropping another.
  c.set('b', 10, 1_000);
  t.equal(c.size, 3);
  t.equal(c.get('b', 0), 10);
  c.set('e', 4, 1_000);
  t.equal(c.get('b', 0), undefined, 'b kept its place: the oldest now');
  t.same(
    ['c', 'd', 'e'].map((k) => c.get(k, 0)),
    [2, 3, 4],
  );
});

t.test('delete removes an entry', async (t) => {
  const c = new ExpiringCache<string, number>(3);
  c.set('a', 1, 1_000);
  c.delete('a');
  t.equal(c.get('a', 0), undefined);
  t.equal(c.size, 0);
});
