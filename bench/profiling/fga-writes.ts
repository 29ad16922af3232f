/**
 * Development aid: the FGA evaluator alone (no HTTP, no database) on the bench data set, uncached
 * checks with a write every W checks (each adds and removes a viewer tuple): on a document, which
 * no frontier reads, and on a folder, which drops every frontier; what frontiers cost under churn.
 *
 *   node --max-old-space-size=4096 --import tsx bench/profiling/fga-writes.ts 1000000
 */
import { Resolver } from '../../plugins/fga/engine/resolver.js';
import { inMemoryBench, type Question } from '../fga/in-memory.js';

const size = Number(process.argv[2] ?? 1_000_000);
const { data, index, model, rnd, question } = inMemoryBench(size);
const ask = (q: Question) => new Resolver(model, index).check(q.object, q.relation, q.user);

for (let i = 0; i < 20_000; i++) ask(question());
const folders = Math.max(10, Math.floor(size / 50));
for (const [every, on] of [
  [0, ''],
  [2000, 'document'],
  [20, 'document'],
  [2000, 'folder'],
  [200, 'folder'],
  [20, 'folder'],
  [2, 'folder'],
] as const) {
  const lat: number[] = [];
  for (let i = 0; i < 40_000; i++) {
    if (every > 0 && i % every === 0) {
      const object = on === 'folder' ? `folder:f${rnd(folders)}` : `document:d${rnd(data.documents)}`;
      const t = { user: `user:writer${i}`, relation: 'viewer', object };
      index.add(t);
      index.remove(t);
    }
    const q = question();
    const start = performance.now();
    ask(q);
    lat.push(performance.now() - start);
  }
  lat.sort((a, b) => a - b);
  const at = (p: number) => (lat[Math.floor(lat.length * p)] * 1000).toFixed(1);
  const mean = (lat.reduce((a, b) => a + b, 0) / lat.length) * 1000;
  console.log(
    `${size} tuples, ${every ? `a write on a ${on} every ${every} checks` : 'no writes'}: p50 ${at(0.5)} µs, p99 ${at(0.99)} µs, mean ${mean.toFixed(1)} µs`,
  );
}
