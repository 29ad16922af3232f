import { createHash } from 'node:crypto';
import t from 'tap';
import { VERIFIED_CACHE_MAX } from '../../../plugins/tokens/service.js';
import { SecondSighting } from '../../../plugins/tokens/second-sighting.js';

// Varies in the four characters before the last one, which the fingerprint reads.
const token = (i: number) => `header.payload.${i.toString(36).padStart(6, 'x')}Q`;

t.test('a token is "seen before" from its second sighting on', async (t) => {
  const s = new SecondSighting(100);
  t.equal(s.seenBefore(token(1)), false, 'first sighting');
  t.equal(s.seenBefore(token(1)), true, 'second');
  t.equal(s.seenBefore(token(1)), true, 'and after');
  t.equal(s.seenBefore(token(2)), false, 'another token is new');
});

t.test('only the last `size` new tokens are remembered', async (t) => {
  const s = new SecondSighting(3);
  for (const i of [1, 2, 3]) s.seenBefore(token(i));
  s.seenBefore(token(4));
  t.equal(s.seenBefore(token(1)), false, 'the oldest was forgotten (and is remembered anew)');
  t.equal(s.seenBefore(token(3)), true, 'a recent one is still known');
});

t.test('the fingerprint is the four characters before the last one', async (t) => {
  const s = new SecondSighting(10);
  t.equal(s.seenBefore('aaaa.bbbb.cccc1234A'), false);
  t.equal(s.seenBefore('zzzz.yyyy.wwww1234B'), true, 'other text elsewhere, same four: a harmless early admission');
  t.equal(s.seenBefore('aaaa.bbbb.cccc1235A'), false, 'one of the four differs: new');
});

t.test("a cycle longer than the memory is never seen again (the accounts bench's cold rows rely on it)", async (t) => {
  // bench/accounts/index.ts cycles VERIFIED_CACHE_MAX + 4,000 tokens so that every request misses
  // the verified-token cache; a token that looks seen on its next pass gets cached and the
  // "cold" rows turn warm (a direct-mapped table did that for ~69% of them).
  const s = new SecondSighting(VERIFIED_CACHE_MAX);
  const cycle = Array.from(
    { length: VERIFIED_CACHE_MAX + 4_000 },
    (_, i) => `h.p.${createHash('sha256').update(`cold-${i}`).digest('base64url')}`,
  );
  for (const tok of cycle) s.seenBefore(tok);
  let seen = 0;
  for (const tok of cycle) if (s.seenBefore(tok)) seen++;
  // Fingerprint collisions admit a few early (~0.2% of new tokens, see second-sighting.ts).
  t.ok(seen < cycle.length * 0.01, `${seen} of ${cycle.length} looked seen on the second pass`);
});

t.test('answers as a ring and a Set of the same fingerprints would, under churn', async (t) => {
  // The model: the fingerprint as second-sighting.ts reads it, kept in a ring and a Set.
  const fingerprint = (tok: string) => {
    let f = 0;
    for (let i = tok.length - 5; i < tok.length - 1; i++) f = (f << 6) | (tok.charCodeAt(i) & 0x3f);
    return f;
  };
  for (const [size, pool] of [
    [7, 20],
    [50, 120],
    [1_000, 1_500],
    [VERIFIED_CACHE_MAX, 30_000],
  ] as const) {
    const s = new SecondSighting(size);
    const ring: number[] = [];
    const model = new Set<number>();
    let seed = size;
    // A small linear congruential generator: the same sequence on every run.
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    let disagreements = 0;
    let seen = 0;
    for (let n = 0; n < 100_000; n++) {
      const tok = token(Math.floor(rand() * pool));
      const f = fingerprint(tok);
      const expected = model.has(f);
      if (!expected) {
        if (ring.length === size) model.delete(ring.shift() as number);
        ring.push(f);
        model.add(f);
      }
      if (s.seenBefore(tok) !== expected) disagreements++;
      if (expected) seen++;
    }
    t.equal(
      disagreements,
      0,
      `size ${size}, ${pool} distinct tokens: ${seen} of 100000 seen before, as the model says`,
    );
  }
});
