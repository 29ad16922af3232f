/**
 * The bench's interleaving (bench/accounts/parties.ts): every other round goes in reverse, so a
 * drift over the rounds lands on a subject and its reference alike, and each result carries the
 * machine's steal share while it ran.
 */
import t from 'tap';
import { interleaved, roundRatioSpread } from '../../../bench/accounts/parties.js';
import type { LoadResult } from '../../../bench/load.js';

t.test('rounds alternate forward and reversed, and each run is averaged over its own rounds', async (t) => {
  const order: string[] = [];
  let clock = 0;
  // A run's rate is the time of its turn: a steady drift. Reversed rounds give every run the same mean.
  const run = (name: string) => async (): Promise<LoadResult> => {
    order.push(name);
    return { rps: ++clock, p99ms: clock, errors: 0 };
  };
  const [a, b, c] = await interleaved([run('a'), run('b'), run('c')], 4);
  t.same(order, ['a', 'b', 'c', 'c', 'b', 'a', 'a', 'b', 'c', 'c', 'b', 'a']);
  t.equal(a.rps, b.rps, 'under a steady drift the first and second run come out equal');
  t.equal(b.rps, c.rps);
  t.equal(a.p99ms, 12, 'the worst p99 of its rounds');
  t.same(a.roundRps, [1, 6, 7, 12], 'each round kept, in round order');
});

t.test(
  'the steal share is a fraction of the CPU time while a run went on',
  { skip: process.platform !== 'linux' && 'reads /proc/stat' },
  async (t) => {
    const [r] = await interleaved(
      [
        async () => {
          // Busy for a few clock ticks, so /proc/stat moves.
          const end = Date.now() + 60;
          while (Date.now() < end);
          return { rps: 1, p99ms: 1, errors: 0 };
        },
      ],
      1,
    );
    t.type(r.stealShare, 'number');
    t.ok(r.stealShare! >= 0 && r.stealShare! <= 1, `steal share ${r.stealShare}`);
  },
);

t.test('the per-round spread compares a subject with its reference round by round', async (t) => {
  const subject = { rps: 0, p99ms: 0, errors: 0, roundRps: [80, 90, 60] };
  const reference = { rps: 0, p99ms: 0, errors: 0, roundRps: [100, 100, 50] };
  t.same(roundRatioSpread(subject, reference), { min: 0.8, max: 1.2 });
  t.equal(roundRatioSpread({ rps: 1, p99ms: 0, errors: 0 }, reference), undefined, 'no rounds, no spread');
});
