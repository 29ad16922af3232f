/**
 * Property: for random small models and tuple sets, check agrees with a brute-force evaluator
 * written here independently (least fixed point by iteration over every (object, relation, user)
 * triple), and list objects returns exactly the objects for which check is true.
 * Exclusions subtract only plain direct relations, so the fixed point is well defined.
 */
import t from 'tap';
import fc from 'fast-check';
import { CompiledModel, Resolver, TupleIndex, DepthExceededError } from '../../../../plugins/fga/engine/index.js';
import { listObjects } from '../../../../plugins/fga/engine/list-objects.js';
import type { Rewrite, Tuple } from '../../../../plugins/fga/engine/types.js';
import { compiledOrNull } from './random-model.js';

const TYPES = ['t0', 't1'];
const IDS = ['a', 'b', 'c'];
const USERS = ['user:u1', 'user:u2'];

// ----- random models ------------------------------------------------------------------------

const arbComputed = fc.constantFrom('r0', 'r1', 'r2', 'r3').map((r) => r);
const arbLeaf = fc.oneof(
  arbComputed.map((r) => `${r}`),
  fc.constantFrom('r0', 'r1', 'r2', 'r3').map((r) => `${r} from parent`),
);
const arbExpr: fc.Arbitrary<string> = fc.oneof(
  arbLeaf,
  fc.tuple(arbLeaf, arbLeaf).map(([a, b]) => (a === b ? a : `${a} or ${b}`)),
  fc.tuple(arbLeaf, arbLeaf).map(([a, b]) => (a === b ? a : `${a} and ${b}`)),
  arbLeaf.map((a) => `(${a}) but not r0`),
  fc
    .tuple(fc.constantFrom('[user]', '[user, user:*]', '[user, t0#r1]', '[user, t1#r2]'), arbLeaf)
    .map(([d, a]) => `${d} or ${a}`),
);
const arbType = fc.record({
  r0Wild: fc.boolean(),
  r1: fc.constantFrom('[user, t0#r1]', '[user, t1#r0]', '[user, user:*, t1#r1]', '[user]'),
  r2: arbExpr,
  r3: arbExpr,
  parent: fc.constantFrom('t0', 't1'),
});
const arbModel = fc.tuple(arbType, arbType).map((defs) => {
  const lines = ['model', '  schema 1.1', 'type user'];
  defs.forEach((d, i) => {
    lines.push(`type t${i}`, '  relations');
    lines.push(`    define parent: [${d.parent}]`);
    lines.push(`    define r0: ${d.r0Wild ? '[user, user:*]' : '[user]'}`);
    lines.push(`    define r1: ${d.r1}`);
    lines.push(`    define r2: ${d.r2}`);
    lines.push(`    define r3: ${d.r3}`);
  });
  return lines.join('\n') + '\n';
});

const arbObject = fc.tuple(fc.constantFrom(...TYPES), fc.constantFrom(...IDS)).map(([ty, id]) => `${ty}:${id}`);
const arbTupleUser = fc.oneof(
  fc.constantFrom(...USERS, 'user:*'),
  fc.tuple(arbObject, fc.constantFrom('r0', 'r1', 'r2')).map(([o, r]) => `${o}#${r}`),
  arbObject,
);
const arbTuples = fc.array(
  fc.record({ user: arbTupleUser, relation: fc.constantFrom('parent', 'r0', 'r1', 'r2', 'r3'), object: arbObject }),
  { maxLength: 14 },
);

// ----- the brute-force evaluator ------------------------------------------------------------

function bruteForce(model: CompiledModel, tuples: Tuple[], users: string[]): Set<string> {
  const fits = tuples.filter((x) => {
    try {
      model.validateTuple(x);
      return true;
    } catch {
      return false;
    }
  });
  const objects = TYPES.flatMap((ty) => IDS.map((id) => `${ty}:${id}`));
  const rels = ['parent', 'r0', 'r1', 'r2', 'r3'];
  let truth = new Set<string>();
  const has = (s: Set<string>, o: string, r: string, u: string) => u === `${o}#${r}` || s.has(`${o}|${r}|${u}`);
  const evalRw = (s: Set<string>, rw: Rewrite, o: string, r: string, u: string): boolean => {
    switch (rw.kind) {
      case 'this':
        return fits.some((x) => {
          if (x.object !== o || x.relation !== r) return false;
          if (x.user === u) return true;
          if (x.user.endsWith(':*')) return !u.includes('#') && u.split(':')[0] === x.user.split(':')[0];
          if (x.user.includes('#')) {
            const [so, sr] = x.user.split('#');
            return has(s, so, sr, u);
          }
          return false;
        });
      case 'computed':
        return has(s, o, rw.relation, u);
      case 'ttu':
        return fits.some(
          (x) =>
            x.object === o &&
            x.relation === rw.tupleset &&
            !!model.relation(x.user.split(':')[0], rw.computed) &&
            has(s, x.user, rw.computed, u),
        );
      case 'union':
        return rw.children.some((c) => evalRw(s, c, o, r, u));
      case 'intersection':
        return rw.children.every((c) => evalRw(s, c, o, r, u));
      case 'exclusion':
        return evalRw(s, rw.base, o, r, u) && !evalRw(s, rw.subtract, o, r, u);
    }
  };
  for (;;) {
    const next = new Set<string>();
    for (const o of objects) {
      for (const r of rels) {
        const def = model.relation(o.split(':')[0], r)!;
        for (const u of users) if (evalRw(truth, def.rewrite, o, r, u)) next.add(`${o}|${r}|${u}`);
      }
    }
    if (next.size === truth.size && [...next].every((k) => truth.has(k))) return truth;
    truth = next;
  }
}

t.test('check agrees with a brute-force evaluator; list objects equals the allowed set', async (t) => {
  let compared = 0;
  fc.assert(
    fc.property(arbModel, arbTuples, (dsl, tuples) => {
      const model = compiledOrNull(dsl);
      if (!model) return true;
      const index = new TupleIndex();
      for (const x of tuples) index.add(x);
      // Usersets as checked users too; the brute force needs them in its universe.
      const users = [...USERS, 't0:a#r1', 't1:b#r2'];
      const universe = [
        ...users,
        ...TYPES.flatMap((ty) => IDS.flatMap((id) => ['r0', 'r1', 'r2', 'r3'].map((r) => `${ty}:${id}#${r}`))),
      ];
      const truth = bruteForce(model, tuples, [...new Set(universe)]);
      // Both ways of answering closed direct relations: top-down, and bottom-up from the user.
      // (reachCap 1: the walk up gives up at once and the check goes on top-down.)
      for (const [u, smallTree, reachCap] of users.flatMap(
        (x) =>
          [
            [x, Number.MAX_SAFE_INTEGER, undefined],
            [x, 0, undefined],
            [x, 0, 1],
          ] as const,
      )) {
        const resolver = new Resolver(model, index, { smallTree, reachCap });
        for (const ty of TYPES) {
          for (const r of ['r0', 'r1', 'r2', 'r3']) {
            let expected: string[];
            try {
              const got = IDS.filter((id) => resolver.check(`${ty}:${id}`, r, u));
              expected = IDS.filter((id) => `${ty}:${id}#${r}` === u || truth.has(`${ty}:${id}|${r}|${u}`));
              if (got.join() !== expected.join())
                throw new Error(
                  `check ${u} ${r} ${ty} (smallTree ${smallTree}, reachCap ${reachCap}): got [${got}] expected [${expected}]\n${dsl}\n${JSON.stringify(tuples)}`,
                );
              const listed = listObjects(new Resolver(model, index), ty, r, u, 1000).ids.sort();
              if (listed.join() !== expected.join())
                throw new Error(
                  `list objects ${u} ${r} ${ty}: got [${listed}] expected [${expected}]\n${dsl}\n${JSON.stringify(tuples)}`,
                );
              compared++;
            } catch (err) {
              if (err instanceof DepthExceededError) continue;
              throw err;
            }
          }
        }
      }
      return true;
    }),
    { numRuns: 300, seed: Number(process.env.FGA_PROPERTY_SEED ?? Date.now() % 2 ** 31) },
  );
  t.ok(compared > 1000, `compared ${compared} (user, relation, type) answers`);
});
