/**
 * The walks up from a checked user are kept on the index between checks (kept-reach.ts). These
 * scenarios write tuples between checks and compare every answer with the top-down walk over the
 * same live tuples (a plain reader keeps nothing): a kept walk must never outlive a tuple it read.
 */
import t from 'tap';
import { CompiledModel, Resolver } from '../../../../plugins/fga/engine/index.js';
import { REACH_CAP } from '../../../../plugins/fga/engine/resolver.js';
import { KeptReach } from '../../../../plugins/fga/engine/kept-reach.js';
import { indexAndWalk } from './index-and-walk.js';
import { WILDCARD_GROUPS_MODEL } from '../models.js';

const MODEL = `${WILDCARD_GROUPS_MODEL}type folder
  relations
    define parent: [folder]
    define viewer: [user, group#member] or viewer from parent
`;
const model = CompiledModel.fromDsl('m', MODEL);

/** Groups g0..g20 as a 4-ary tree (g0 the root, so trees are big enough to be walked up), and folders f0 <- f1 <- f2. */
function base(): [string, string, string][] {
  const tuples: [string, string, string][] = [];
  for (let g = 1; g <= 20; g++) tuples.push([`group:g${g}#member`, 'member', `group:g${Math.floor((g - 1) / 4)}`]);
  tuples.push(
    ['folder:f0', 'parent', 'folder:f1'],
    ['folder:f1', 'parent', 'folder:f2'],
    ['group:g5#member', 'viewer', 'folder:f0'],
  );
  return tuples;
}

t.test('a user joining, leaving and reaching through a new nesting is seen at the next check', async (t) => {
  const { index, both } = indexAndWalk(model, base());
  const tuple = (user: string, relation: string, object: string) => ({ user, relation, object });
  t.same(both('group:g0', 'member', 'user:anne'), [false, false], 'anne is in no group');
  t.same(both('folder:f2', 'viewer', 'user:anne'), [false, false], 'so she views no folder');
  const kept = index.reachOf(model, REACH_CAP, 'user:anne');
  t.ok(kept.size > 0, 'her walk is kept');
  t.equal(index.reachOf(model, REACH_CAP, 'user:anne'), kept, 'and the same one is found again');

  index.add(tuple('user:anne', 'member', 'group:g20'));
  t.not(index.reachOf(model, REACH_CAP, 'user:anne'), kept, 'a tuple of hers forgets it');
  t.same(both('group:g0', 'member', 'user:anne'), [true, true], 'she is in the root through g20 -> g4 -> g0');
  t.same(both('group:g1', 'member', 'user:anne'), [false, false], 'not in another branch');
  t.same(both('folder:f2', 'viewer', 'user:anne'), [false, false], 'g5 (the viewer of f0) is not on her way up');

  index.add(tuple('user:bob', 'member', 'group:g3'));
  t.same(both('group:g0', 'member', 'user:bob'), [true, true], 'bob is in the root');
  const annes = index.reachOf(model, REACH_CAP, 'user:anne');
  t.same(both('group:g0', 'member', 'user:anne'), [true, true]);
  index.add(tuple('user:carol', 'member', 'group:g1'));
  t.equal(index.reachOf(model, REACH_CAP, 'user:anne'), annes, "another user's tuple leaves anne's walk as it was");

  index.add(tuple('group:g4#member', 'member', 'group:g5'));
  t.not(index.reachOf(model, REACH_CAP, 'user:anne'), annes, 'a userset tuple forgets every walk');
  t.same(both('folder:f2', 'viewer', 'user:anne'), [true, true], 'g20 -> g4 -> g5 now: she views f0 and so f2');
  t.same(both('folder:f2', 'viewer', 'user:bob'), [false, false], 'bob (g3) does not');

  index.remove(tuple('user:anne', 'member', 'group:g20'));
  t.same(both('folder:f2', 'viewer', 'user:anne'), [false, false], 'she left g20');
  t.same(both('group:g0', 'member', 'user:anne'), [false, false]);

  index.add(tuple('user:*', 'member', 'group:g19'));
  t.same(both('folder:f2', 'viewer', 'user:dave'), [true, true], 'everyone is in g19 -> g4 -> g5');
  t.same(both('folder:f2', 'viewer', 'user:anne'), [true, true], 'anne too, walked before the wildcard');
  index.remove(tuple('user:*', 'member', 'group:g19'));
  t.same(both('folder:f2', 'viewer', 'user:anne'), [false, false], 'and no longer once it is gone');

  index.clear();
  t.same(both('group:g0', 'member', 'user:bob'), [false, false], 'a cleared index keeps no walk');
});

t.test('random writes between checks: the index with kept walks answers as the top-down walk', async (t) => {
  const { index, both } = indexAndWalk(model, base());
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor((seed / 2147483648) * n);
  };
  const users = ['user:u0', 'user:u1', 'user:u2', 'user:u3', 'user:*'];
  const groups = Array.from({ length: 21 }, (_, g) => `group:g${g}`);
  const folders = ['folder:f0', 'folder:f1', 'folder:f2', 'folder:f3'];
  const write = () => {
    const kind = rnd(5);
    if (kind === 0) return { user: users[rnd(users.length)], relation: 'member', object: groups[rnd(groups.length)] };
    if (kind === 1)
      return { user: `${groups[rnd(groups.length)]}#member`, relation: 'member', object: groups[rnd(groups.length)] };
    if (kind === 2)
      return { user: `${groups[rnd(groups.length)]}#member`, relation: 'viewer', object: folders[rnd(folders.length)] };
    if (kind === 3)
      return { user: folders[rnd(folders.length)], relation: 'parent', object: folders[rnd(folders.length)] };
    return { user: users[rnd(users.length - 1)], relation: 'viewer', object: folders[rnd(folders.length)] };
  };
  let disagreements = 0;
  let checks = 0;
  let trueAnswers = 0;
  for (let step = 0; step < 600; step++) {
    const tuple = write();
    if (rnd(3) === 0) index.remove(tuple);
    else index.add(tuple);
    for (let k = 0; k < 4; k++) {
      const user = users[rnd(users.length - 1)];
      const [object, relation] =
        rnd(2) === 0 ? [groups[rnd(groups.length)], 'member'] : [folders[rnd(folders.length)], 'viewer'];
      const [kept, walked] = both(object, relation, user);
      checks++;
      if (kept === true) trueAnswers++;
      if (kept !== walked) {
        disagreements++;
        t.fail(`step ${step}: ${user} ${relation} ${object}: ${kept} with kept walks, ${walked} walking`);
      }
    }
  }
  t.equal(disagreements, 0, `${checks} checks after writes agree`);
  t.ok(
    trueAnswers > checks / 10 && trueAnswers < checks - checks / 10,
    `both answers occur (${trueAnswers} true of ${checks})`,
  );
});

t.test('the memory is bounded, and a new model or cap starts it afresh', async (t) => {
  const other = CompiledModel.fromDsl('m2', MODEL);
  const kept = new KeptReach(3);
  const a = kept.forUser(model, REACH_CAP, 'user:a');
  kept.forUser(model, REACH_CAP, 'user:b');
  kept.forUser(model, REACH_CAP, 'user:c');
  t.equal(kept.forUser(model, REACH_CAP, 'user:a'), a, 'found while there is room');
  kept.forUser(model, REACH_CAP, 'user:d');
  t.equal(kept.size, 3, 'never more than the bound');
  t.not(kept.forUser(model, REACH_CAP, 'user:a'), a, 'the oldest went first');
  const again = kept.forUser(model, REACH_CAP, 'user:a');
  t.not(kept.forUser(other, REACH_CAP, 'user:a'), again, 'another model keeps its own walks');
  t.equal(kept.size, 1, 'and the old ones are dropped');
  const capped = kept.forUser(other, 1, 'user:a');
  t.equal(kept.size, 1);
  t.not(kept.forUser(other, REACH_CAP, 'user:a'), capped, 'walks made under another cap are not reused');
  kept.forgetAll();
  t.equal(kept.size, 0);

  const { index } = indexAndWalk(model, base());
  const capOne = new Resolver(model, index, { reachCap: 1 });
  index.add({ user: 'user:e', relation: 'member', object: 'group:g20' });
  t.equal(capOne.check('group:g0', 'member', 'user:e'), true, 'a capped walk answers top-down');
  t.equal(
    new Resolver(model, index).check('group:g0', 'member', 'user:e'),
    true,
    'and the uncapped one after it is not misled by it',
  );
});
