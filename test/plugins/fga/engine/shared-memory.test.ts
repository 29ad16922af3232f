/**
 * One resolver serves every check of a request (a batch, a list) and remembers sub-answers
 * (resolver.ts). Whatever it remembers, each check must get the answer (or the depth error) it
 * gets alone: an answer that assumed a cycle false must not outlive the cycle when a `but not`
 * could have flipped it, and an answer found at a shallow depth must not let a deeper check skip
 * the 25-hop limit. Scenarios, then a property over random models with subtraction in cycles.
 */
import t from 'tap';
import fc from 'fast-check';
import {
  CompiledModel,
  DepthExceededError,
  MAX_DEPTH,
  Resolver,
  TupleIndex,
} from '../../../../plugins/fga/engine/index.js';
import { checkMany } from '../../../../plugins/fga/engine/queries.js';
import { FgaService } from '../../../../plugins/fga/service.js';
import { MemoryFgaStore } from '../../../../plugins/fga/store/memory-store.js';
import type { Tuple } from '../../../../plugins/fga/engine/types.js';
import { compiledOrNull } from './random-model.js';

type Outcome = boolean | 'depth';

function indexOf(tuples: Tuple[]): TupleIndex {
  const index = new TupleIndex();
  for (const x of tuples) index.add(x);
  return index;
}

/** Answers `questions` with one shared resolver, in order; a depth error is an outcome. */
function shared(model: CompiledModel, index: TupleIndex, questions: [string, string, string][]): Outcome[] {
  const resolver = new Resolver(model, index);
  return questions.map(([object, relation, user]) => {
    try {
      return resolver.check(object, relation, user);
    } catch (err) {
      if (err instanceof DepthExceededError) return 'depth';
      throw err;
    }
  });
}

const alone = (model: CompiledModel, index: TupleIndex, questions: [string, string, string][]): Outcome[] =>
  questions.map((q) => shared(model, index, [q])[0]);

const CYCLE_MODEL = `model
  schema 1.1
type user
type doc
  relations
    define y: [user]
    define a: [user] but not b
    define b: [user] or x
    define x: a or y
`;

t.test('which models are stratified (no relation depends on itself through a but not)', async (t) => {
  t.equal(CompiledModel.fromDsl('m', CYCLE_MODEL).stratified, false, 'a -> b -> x -> a, through `but not b`');
  const head = 'model\n  schema 1.1\ntype user\n';
  t.equal(
    CompiledModel.fromDsl(
      'm',
      `${head}type doc\n  relations\n    define blocked: [user]\n    define viewer: [user]\n    define can_view: viewer but not blocked\n`,
    ).stratified,
    true,
    'a subtraction outside any cycle',
  );
  t.equal(
    CompiledModel.fromDsl('m', `${head}type group\n  relations\n    define member: [user, group#member]\n`).stratified,
    true,
    'a positive cycle only',
  );
  t.equal(
    CompiledModel.fromDsl(
      'm',
      `${head}type folder\n  relations\n    define parent: [folder]\n    define banned: [user] or viewer from parent\n    define viewer: [user] but not banned\n`,
    ).stratified,
    false,
    'through a parent: viewer -> banned -> viewer of the parent',
  );
});

t.test('a subtraction inside a cycle: each check of a batch gets its own answer, in any order', async (t) => {
  const model = CompiledModel.fromDsl('m', CYCLE_MODEL);
  const tuples = [
    { user: 'user:anne', relation: 'a', object: 'doc:1' },
    { user: 'user:anne', relation: 'y', object: 'doc:1' },
  ];
  const index = indexOf(tuples);
  const x: [string, string, string] = ['doc:1', 'x', 'user:anne'];
  const a: [string, string, string] = ['doc:1', 'a', 'user:anne'];
  t.same(alone(model, index, [x, a]), [true, false], 'alone: x holds through y, a does not (b holds through x)');
  t.same(shared(model, index, [x, a]), [true, false], 'x first, then a');
  t.same(shared(model, index, [a, x]), [false, true], 'a first, then x');
  const batch = checkMany(
    model,
    index,
    [x, a].map(([object, relation, user]) => ({ object, relation, user })),
  );
  t.same(batch, [true, false], 'checkMany');

  // Through the service: its answer cache must not keep what a batch got wrong either.
  const service = await FgaService.open(new MemoryFgaStore());
  t.teardown(() => service.close());
  await service.installModel(CYCLE_MODEL);
  await service.writeTuples(tuples);
  t.same(
    service.check([x, a].map(([object, relation, user]) => ({ object, relation, user }))),
    [true, false],
    'service batch',
  );
  t.same(
    service.check([{ object: 'doc:1', relation: 'a', user: 'user:anne' }]),
    [false],
    'a alone afterwards (cached or not)',
  );
  t.equal(await service.checkRelations('user:anne', [{ object: 'doc:1', relation: 'a' }]), false, 'required_relations');
  const all = service
    .listPermissions('user:anne', {})
    .permissions.map((p) => `${p.object}#${p.relation}`)
    .sort();
  t.same(all, ['doc:1#b', 'doc:1#x', 'doc:1#y'], 'an empty list_permissions agrees with the checks');
});

t.test('a batch cannot skip the depth limit by answering the deep part first', async (t) => {
  const model = CompiledModel.fromDsl(
    'm',
    'model\n  schema 1.1\ntype user\ntype group\n  relations\n    define member: [user, group#member]\n',
  );
  const chain: Tuple[] = Array.from({ length: 30 }, (_, i) => ({
    user: `group:g${i + 1}#member`,
    relation: 'member',
    object: `group:g${i}`,
  }));
  chain.push({ user: 'user:deep', relation: 'member', object: 'group:g30' });
  const index = indexOf(chain);
  const g = (i: number): [string, string, string] => [`group:g${i}`, 'member', 'user:deep'];
  t.same(
    alone(model, index, [g(10), g(0), g(5), g(4)]),
    [true, 'depth', true, 'depth'],
    `alone: g5 is ${MAX_DEPTH} hops from the user, g4 and g0 more`,
  );
  t.same(shared(model, index, [g(10), g(0)]), [true, 'depth'], 'g10 answered first does not carry g0 through');
  t.same(
    shared(model, index, [g(10), g(5), g(0), g(4), g(6)]),
    [true, true, 'depth', 'depth', true],
    'several in a row',
  );
  t.throws(
    () =>
      checkMany(
        model,
        index,
        [g(10), g(0)].map(([object, relation, user]) => ({ object, relation, user })),
      ),
    { message: /more than 25 nested hops/ },
    'checkMany',
  );
});

// ----- property ---------------------------------------------------------------------------

const LEAVES = ['r0', 'r1', 'r2', 'r3', 'r1 from parent', 'r2 from parent', 'r3 from parent'];
const arbLeaf = fc.constantFrom(...LEAVES);
// Parenthesized so operators may mix; subtraction of any relation, cycles included (the
// brute-force property avoids these, as their fixed point is not unique).
const arbExpr: fc.Arbitrary<string> = fc.oneof(
  arbLeaf,
  fc.tuple(arbLeaf, arbLeaf).map(([a, b]) => (a === b ? a : `(${a} or ${b})`)),
  fc.tuple(arbLeaf, arbLeaf).map(([a, b]) => (a === b ? a : `(${a} and ${b})`)),
  fc.tuple(arbLeaf, fc.constantFrom('r1', 'r2', 'r3')).map(([a, b]) => `(${a} but not ${b})`),
  fc
    .tuple(fc.tuple(arbLeaf, arbLeaf), fc.constantFrom('r1', 'r2', 'r3'))
    .map(([[a, b], c]) => `((${a} or ${b}) but not ${c})`),
);
// Every relation has direct users, so every one has an entry point.
const arbModel = fc
  .array(fc.record({ r1: arbExpr, r2: arbExpr, r3: arbExpr, parent: fc.constantFrom('t0', 't1') }), {
    minLength: 2,
    maxLength: 2,
  })
  .map((defs) => {
    const lines = ['model', '  schema 1.1', 'type user'];
    defs.forEach((d, i) =>
      lines.push(
        `type t${i}`,
        '  relations',
        `    define parent: [${d.parent}]`,
        '    define r0: [user]',
        `    define r1: [user] or ${d.r1}`,
        `    define r2: [user, t0#r1] or ${d.r2}`,
        `    define r3: [user, t1#r2] or ${d.r3}`,
      ),
    );
    return lines.join('\n') + '\n';
  });
const arbObject = fc.tuple(fc.constantFrom('t0', 't1'), fc.constantFrom('a', 'b')).map(([ty, id]) => `${ty}:${id}`);
const arbTuples = fc.array(
  fc.record({
    user: fc.oneof(
      fc.constantFrom('user:u1', 'user:u2'),
      arbObject,
      fc.tuple(arbObject, fc.constantFrom('r1', 'r2')).map(([o, r]) => `${o}#${r}`),
    ),
    relation: fc.constantFrom('parent', 'r0', 'r1', 'r2', 'r3'),
    object: arbObject,
  }),
  { maxLength: 12 },
);
const QUESTIONS: [string, string, string][] = ['t0:a', 't0:b', 't1:a', 't1:b'].flatMap((o) =>
  ['r1', 'r2', 'r3'].flatMap((r) => ['user:u1', 'user:u2'].map((u) => [o, r, u] as [string, string, string])),
);

t.test('property: a shared resolver answers every question as a fresh one does, in any order', async (t) => {
  let compared = 0;
  fc.assert(
    fc.property(
      arbModel,
      arbTuples,
      fc.array(fc.nat(QUESTIONS.length - 1), { minLength: 4, maxLength: 24 }),
      (dsl, tuples, picks) => {
        const model = compiledOrNull(dsl);
        if (!model) return true;
        const valid = tuples.filter((x) => {
          try {
            model.validateTuple(x);
            return true;
          } catch {
            return false;
          }
        });
        const index = indexOf(valid);
        const questions = picks.map((i) => QUESTIONS[i]);
        const got = shared(model, index, questions);
        const expected = alone(model, index, questions);
        if (JSON.stringify(got) !== JSON.stringify(expected)) {
          throw new Error(
            `shared ${JSON.stringify(got)} != alone ${JSON.stringify(expected)}\n${JSON.stringify(questions)}\n${dsl}\n${JSON.stringify(valid)}`,
          );
        }
        compared += questions.length;
        return true;
      },
    ),
    {
      numRuns: Number(process.env.FGA_SHARED_RUNS ?? 2000),
      seed: Number(process.env.FGA_PROPERTY_SEED ?? Date.now() % 2 ** 31),
    },
  );
  t.ok(compared > 2000, `compared ${compared} answers`);
});

t.test(
  'a lattice of usersets past the limit costs a few dozen evaluations, not 2^K: failures are remembered',
  async (t) => {
    // With every sibling going on past a depth error (OpenFGA's union), a failure that is not
    // remembered cost 65,545 evaluations and a second for K=16, and contextual tuples
    // alone could block the event loop for minutes.
    const model = CompiledModel.fromDsl(
      'm',
      'model\n  schema 1.1\ntype user\ntype group\n  relations\n    define member: [user, group#member]\n',
    );
    const levels = 28;
    const wide = 16;
    const nodes = (level: number) => (level >= levels - wide ? [`g${level}a`, `g${level}b`] : [`g${level}a`]);
    const tuples: Tuple[] = [];
    for (let level = 0; level < levels - 1; level++) {
      for (const parent of nodes(level))
        for (const child of nodes(level + 1))
          tuples.push({ user: `group:${child}#member`, relation: 'member', object: `group:${parent}` });
    }
    // The same lattice with every node also naming the top as a member: each failure below then
    // assumed the open top question false (a cycle), and must be remembered all the same.
    const cyclic = [
      ...tuples,
      ...Array.from({ length: levels - 1 }, (_, l) =>
        nodes(l + 1).map((n) => ({ user: 'group:g0a#member', relation: 'member', object: `group:${n}` })),
      ).flat(),
    ];
    for (const [name, set] of [
      ['acyclic', tuples],
      ['with a cycle at every node', cyclic],
    ] as const) {
      for (const smallTree of [undefined, Number.MAX_SAFE_INTEGER]) {
        const resolver = new Resolver(model, indexOf(set), smallTree === undefined ? {} : { smallTree });
        const started = performance.now();
        t.throws(
          () => resolver.check('group:g0a', 'member', 'user:bob'),
          /more than 25 nested hops/,
          `${name}: the depth error`,
        );
        t.ok(resolver.evaluations < 200, `${name}: ${resolver.evaluations} evaluations`);
        t.ok(performance.now() - started < 500, `${name}: ${Math.round(performance.now() - started)} ms`);
      }
    }
  },
);

t.test(
  'the computed-nesting limit ends the check: a lattice under a 260-long computed chain costs a few hundred evaluations',
  async (t) => {
    // Letting sibling branches go on past this (unremembered) error walked the
    // lattice once per path: 8.4 million evaluations and 27 s for 14 levels.
    const chain = Array.from({ length: 260 }, (_, i) => `    define c${i}: ${i + 1 < 260 ? `c${i + 1}` : 'u'}`).join(
      '\n',
    );
    const model = CompiledModel.fromDsl(
      'm',
      `model\n  schema 1.1\ntype user\ntype group\n  relations\n    define member: [user, group#member] or c0\n${chain}\n    define u: [user]\n`,
    );
    const nodes = (l: number) => (l === 0 ? ['g0a'] : [`g${l}a`, `g${l}b`]);
    const tuples: Tuple[] = [];
    for (let l = 0; l < 14; l++)
      for (const p of nodes(l))
        for (const c of nodes(l + 1))
          tuples.push({ user: `group:${c}#member`, relation: 'member', object: `group:${p}` });
    const resolver = new Resolver(model, indexOf(tuples));
    t.throws(() => resolver.check('group:g0a', 'member', 'user:bob'), /more than 256 nested computed relations/);
    t.ok(resolver.evaluations < 1000, `${resolver.evaluations} evaluations`);
  },
);
