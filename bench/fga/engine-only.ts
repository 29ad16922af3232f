/**
 * The evaluator alone on the bench data set, no database (profiling aid):
 * `node --cpu-prof --import tsx bench/fga/engine-only.ts 1000000`.
 */
import { Resolver, type ResolverOptions } from '../../plugins/fga/engine/resolver.js';
import { inMemoryBench } from './in-memory.js';

const size = Number(process.argv[2] ?? 1_000_000);
const { index, model, question: one } = inMemoryBench(size);
// The same index either way; top-down only when every userset tree counts as small. (A plain
// TupleReader would also walk top-down, but through the allocating path meant for contextual tuples.)
const readers: [string, ResolverOptions][] = [
  ['index (bottom-up for closed direct relations)', {}],
  ['top-down only', { smallTree: Number.MAX_SAFE_INTEGER }],
];
// The resolver alone: the generated questions are valid, so checkMany's input validation is left out.
const ask = (options: ResolverOptions, q: ReturnType<typeof one>) =>
  new Resolver(model, index, options).check(q.object, q.relation, q.user);
for (let i = 0; i < 5000; i++) for (const [, o] of readers) ask(o, one());
const lat = readers.map(() => [] as number[]);
const allowed = readers.map(() => 0);
for (let i = 0; i < 50_000; i++) {
  const q = one();
  // Alternate who goes first: the second run finds the same data in the CPU caches.
  (i % 2 === 0 ? [0, 1] : [1, 0]).forEach((k) => {
    const o = readers[k][1];
    const s = performance.now();
    if (ask(o, q)) allowed[k]++;
    lat[k].push(performance.now() - s);
  });
}
readers.forEach(([name], k) => {
  const xs = lat[k].sort((a, b) => a - b);
  const pct = (p: number) => (xs[Math.floor(xs.length * p)] * 1000).toFixed(1);
  console.log(
    `${size} tuples, ${name}: p50 ${pct(0.5)} µs, p99 ${pct(0.99)} µs, p99.9 ${pct(0.999)} µs, max ${(xs[xs.length - 1] * 1000).toFixed(0)} µs, allowed ${allowed[k]}`,
  );
});
