/**
 * The bench data set in a tuple index of its own, with the bench model compiled and a seeded
 * stream of random `can_view` questions: what the evaluator-only tools share (engine-only.ts,
 * bench/profiling/fga-writes.ts).
 */
import { CompiledModel } from '../../plugins/fga/engine/compiled-model.js';
import { TupleIndex } from '../../plugins/fga/engine/tuple-index.js';
import { BENCH_MODEL, generate, prng, type Dataset } from './dataset.js';

export interface Question {
  user: string;
  relation: string;
  object: string;
}

export function inMemoryBench(size: number): {
  data: Dataset;
  index: TupleIndex;
  model: CompiledModel;
  rnd: (n: number) => number;
  question: () => Question;
} {
  const data = generate(size);
  const index = new TupleIndex();
  for (const t of data.tuples) index.add(t);
  const model = CompiledModel.fromDsl('bench', BENCH_MODEL);
  const rnd = prng(7);
  const question = () => ({
    user: `user:u${rnd(data.users)}`,
    relation: 'can_view',
    object: `document:d${rnd(data.documents)}`,
  });
  return { data, index, model, rnd, question };
}
