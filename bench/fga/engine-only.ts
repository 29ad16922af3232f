/**
 * The evaluator alone on the bench data set, no database (profiling aid):
 * `node --cpu-prof --import tsx bench/fga/engine-only.ts 1000000`.
 */
import { CompiledModel } from '../../plugins/fga/engine/compiled-model.js';
import { checkMany } from '../../plugins/fga/engine/queries.js';
import { TupleIndex } from '../../plugins/fga/engine/tuple-index.js';
import type { TupleReader } from '../../plugins/fga/engine/tuple-reader.js';
import { BENCH_MODEL, generate, prng } from './dataset.js';

const size = Number(process.argv[2] ?? 1_000_000);
const data = generate(size);
const index = new TupleIndex();
for (const t of data.tuples) index.add(t);
const model = CompiledModel.fromDsl('bench', BENCH_MODEL);
const rnd = prng(7);
const one = () => ({ user: `user:u${rnd(data.users)}`, relation: 'can_view', object: `document:d${rnd(data.documents)}` });
// The same index behind a plain reader: the resolver then walks usersets top-down only.
const topDown: TupleReader = {
  directUsers: (k) => index.directUsers(k),
  usersetUsers: (k) => index.usersetUsers(k),
  objectIds: (t, r, u) => index.objectIds(t, r, u),
};
const readers: [string, TupleReader][] = [['index (bottom-up for closed direct relations)', index], ['top-down only', topDown]];
for (let i = 0; i < 5000; i++) for (const [, r] of readers) checkMany(model, r, [one()]);
const lat = readers.map(() => [] as number[]);
const allowed = readers.map(() => 0);
for (let i = 0; i < 50_000; i++) {
  const q = one();
  // Alternate who goes first: the second run finds the same data in the CPU caches.
  (i % 2 === 0 ? [0, 1] : [1, 0]).forEach((k) => {
    const r = readers[k][1];
    const s = performance.now();
    if (checkMany(model, r, [q])[0]) allowed[k]++;
    lat[k].push(performance.now() - s);
  });
}
readers.forEach(([name], k) => {
  const xs = lat[k].sort((a, b) => a - b);
  const pct = (p: number) => (xs[Math.floor(xs.length * p)] * 1000).toFixed(1);
  console.log(`${size} tuples, ${name}: p50 ${pct(0.5)} µs, p99 ${pct(0.99)} µs, p99.9 ${pct(0.999)} µs, max ${(xs[xs.length - 1] * 1000).toFixed(0)} µs, allowed ${allowed[k]}`);
});
