/** The random pool behind session ids, token ids and IVs: sizes, no byte handed out twice, slices never overwritten. */
import t from 'tap';
import { createRandomPool } from '../../core/random-pool.js';

t.test('bytes and ids of the asked size, all distinct across many batches', async (t) => {
  const pool = createRandomPool();
  t.equal(pool.bytes(12).length, 12);
  t.match(pool.id(18), /^[A-Za-z0-9_-]{24}$/, '18 bytes are 24 base64url characters');
  t.equal(pool.bytes(10_000).length, 10_000, 'more than a batch at once');
  const seen = new Set<string>();
  for (let i = 0; i < 5_000; i++) seen.add(pool.id(16));
  t.equal(seen.size, 5_000, 'no id repeats (20 batches)');
});

t.test('a slice given out keeps its bytes after later draws refill the batch', async (t) => {
  const pool = createRandomPool();
  const view = pool.bytes(12);
  const copy = Buffer.from(view);
  for (let i = 0; i < 1_000; i++) pool.bytes(16);
  t.ok(view.equals(copy));
});

t.test('two pools give different bytes', async (t) => {
  t.not(createRandomPool().id(16), createRandomPool().id(16));
});
