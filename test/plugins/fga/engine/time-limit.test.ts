/**
 * The evaluation time limit (EVALUATION_TIME_LIMIT_MS in resolver.ts): the engine runs on the
 * server's event loop, so a model dense in cycles must not hold it for seconds. Past the deadline
 * a check fails like a model too deep to resolve (invalid_argument), and the request ends there.
 * Also: the hop-limit failure that such models throw along thousands of branches reaches the
 * caller as an error of its own, not the instance the resolver shares internally.
 */
import t from 'tap';
import { CompiledModel, Resolver, TupleIndex } from '../../../../plugins/fga/engine/index.js';
import { DepthExceededError, EVALUATION_TIME_LIMIT_MS } from '../../../../plugins/fga/engine/resolver.js';
import { checkMany } from '../../../../plugins/fga/engine/queries.js';

/**
 * A random model of 32 relations, each a union of four terms (computed or `from parent`, now and
 * then an intersection) and `d`, over 20 documents with two parents each: a deterministic
 * generator, so the same model every run. Every check on it fails on the hop limit after ~5,000
 * evaluations (~0.1-0.3 s on a 2-core VM).
 */
function denseModel(seed: number): { model: CompiledModel; index: TupleIndex } {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const defs: string[] = [];
  for (let i = 0; i < 32; i++) {
    const terms: string[] = [];
    for (let k = 0; k < 4; k++) {
      const j = Math.floor(rnd() * 32);
      const term = rnd() < 0.5 ? `r${j} from parent` : `r${j}`;
      if (!terms.includes(term)) terms.push(term);
    }
    terms.push('d');
    defs.push(
      `    define r${i}: ${rnd() < 0.2 ? `(${terms[0]} and ${terms[1]}) or ${terms.slice(2).join(' or ')}` : terms.join(' or ')}`,
    );
  }
  const model = CompiledModel.fromDsl(
    'm',
    `model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define parent: [doc]\n    define d: [user]\n${defs.join('\n')}\n`,
  );
  const index = new TupleIndex();
  for (let c = 0; c < 20; c++) {
    for (let e = 0; e < 2; e++) {
      index.add({ user: `doc:${Math.floor(rnd() * 20)}`, relation: 'parent', object: `doc:${c}` });
    }
  }
  index.add({ user: 'user:a', relation: 'd', object: 'doc:19' });
  return { model, index };
}

const { model, index } = denseModel(3);

t.test('within the limit the dense check ends on the hop limit, with an error of its own', async (t) => {
  const errors: unknown[] = [];
  for (const q of ['doc:0#r0', 'doc:1#r29']) {
    const [object, relation] = q.split('#');
    const resolver = new Resolver(model, index);
    try {
      resolver.check(object, relation, 'user:b');
    } catch (err) {
      errors.push(err);
    }
    t.ok(resolver.evaluations > 1_000, `${q}: ${resolver.evaluations} evaluations`);
  }
  t.equal(errors.length, 2, 'both fail');
  for (const err of errors) {
    t.type(err, DepthExceededError);
    t.match(err, { code: 'invalid_argument', hops: true, message: /more than 25 nested hops/ });
  }
  t.not(errors[0], errors[1], 'each caller gets a fresh error, not the shared internal one');
});

t.test('past the deadline a check ends with the time-limit error, not an answer', async (t) => {
  const started = performance.now();
  const resolver = new Resolver(model, index, { deadline: started });
  t.throws(() => resolver.check('doc:0', 'r0', 'user:b'), {
    code: 'invalid_argument',
    message: `authorization model resolution too complex: evaluation ran longer than ${EVALUATION_TIME_LIMIT_MS} ms`,
  });
  t.ok(
    resolver.evaluations < 1_000,
    `stopped after ${resolver.evaluations} evaluations (the clock is read every 256 sub-questions)`,
  );
  t.ok(performance.now() - started < 100, 'at once');

  // A model that answers quickly is not affected by a deadline it never reaches.
  const quick = CompiledModel.fromDsl(
    'q',
    'model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]\n',
  );
  const small = new TupleIndex();
  small.add({ user: 'user:a', relation: 'viewer', object: 'doc:1' });
  t.equal(
    new Resolver(quick, small, { deadline: performance.now() }).check('doc:1', 'viewer', 'user:a'),
    true,
    'fewer than 256 sub-questions never read the clock',
  );
});

t.test('a batch has one time limit, not one per resolver it makes', async (t) => {
  // Checks with contextual tuples each get a resolver of their own; each must stop at the batch's
  // deadline. On this model every check fails on the hop limit after ~5,000 sub-questions, so a
  // resolver that kept a fresh deadline of its own answers with the hop error, and only one that
  // got the batch's (already past) deadline answers with the time-limit error.
  const queries = [
    { object: 'doc:1', relation: 'r0', user: 'user:b' },
    ...Array.from({ length: 3 }, (_, i) => ({
      object: `doc:${i}`,
      relation: 'r0',
      user: 'user:b',
      contextualTuples: [{ user: 'user:c', relation: 'd', object: `doc:${i}` }],
    })),
  ];
  const past = performance.now();
  t.throws(
    () => checkMany(model, index, queries.slice(1), past),
    { message: /evaluation ran longer than/ },
    'a contextual check stops at the batch deadline',
  );
  t.throws(
    () => checkMany(model, index, queries, past),
    { message: /evaluation ran longer than/ },
    'so does the shared resolver',
  );
  t.throws(
    () => checkMany(model, index, queries.slice(1)),
    { message: /more than 25 nested hops/ },
    'within the default limit the same batch fails on hops',
  );
});
