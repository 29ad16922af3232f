/**
 * Closed direct relations (`member: [user, group#member]`) are answered bottom-up from the user
 * when the userset tree below the node is big (resolver.ts). These scenarios compare that with
 * the top-down walk on the same tuples (a plain reader, which never takes the shortcut): same
 * answers, same depth errors, cycles still false, and a new userset tuple is seen at once.
 */
import t from 'tap';
import { CompiledModel, MAX_DEPTH, Resolver } from '../../../../plugins/fga/engine/index.js';
import { indexAndWalk } from './index-and-walk.js';
import { WILDCARD_GROUPS_MODEL } from '../models.js';

const MODEL = `${WILDCARD_GROUPS_MODEL}type doc
  relations
    define viewer: [group#member]
`;
const model = CompiledModel.fromDsl('m', MODEL);

const setup = (tuples: [string, string, string][]) => indexAndWalk(model, tuples);

/** A 4-ary tree of groups g0..g340 (g0 the root), each leaf with one user u<leaf>. */
function tree(): [string, string, string][] {
  const tuples: [string, string, string][] = [];
  for (let g = 1; g < 341; g++) tuples.push([`group:g${g}#member`, 'member', `group:g${Math.floor((g - 1) / 4)}`]);
  for (let g = 85; g < 341; g++) tuples.push([`user:u${g}`, 'member', `group:g${g}`]);
  return tuples;
}

t.test('a wide group tree: bottom-up and top-down agree, and bottom-up visits little', async (t) => {
  const { index, both } = setup([
    ...tree(),
    ['group:g5#member', 'viewer', 'doc:d'],
    ['user:*', 'member', 'group:g300'],
  ]);
  let compared = 0;
  for (const u of ['user:u85', 'user:u200', 'user:u340', 'user:nobody', 'group:g21#member', 'user:*']) {
    for (const g of [0, 1, 5, 21, 84, 85, 300]) {
      const [up, down] = both(`group:g${g}`, 'member', u);
      t.equal(up, down, `${u} member of g${g}`);
      compared++;
    }
    const [up, down] = both('doc:d', 'viewer', u);
    t.equal(up, down, `${u} viewer of doc:d`);
  }
  t.equal(both('group:g0', 'member', 'user:u340')[0], true, 'a leaf user is in the root');
  t.equal(
    both('group:g0', 'member', 'user:nobody')[0],
    true,
    'everyone is in the root through the user:* tuple of g300',
  );
  t.equal(both('group:g1', 'member', 'user:nobody')[0], false, 'but not in a branch without it');
  const up = new Resolver(model, index);
  const down = new Resolver(model, index, { smallTree: Number.MAX_SAFE_INTEGER });
  up.check('group:g1', 'member', 'user:nobody');
  down.check('group:g1', 'member', 'user:nobody');
  t.ok(
    up.evaluations < 5 && down.evaluations > 80,
    `bottom-up evaluated ${up.evaluations} questions, top-down ${down.evaluations}`,
  );
  const capped = new Resolver(model, index, { reachCap: 2 });
  t.equal(
    capped.check('group:g0', 'member', 'user:u340'),
    true,
    'a user reaching more than the cap is answered top-down, rightly',
  );
  t.ok(capped.evaluations > 80, `(it evaluated ${capped.evaluations} questions)`);
  t.ok(compared > 40);
});

t.test('the depth limit and cycles behave as in the top-down walk', async (t) => {
  const tuples: [string, string, string][] = [];
  // A chain c0 <- c1 <- ... <- c30 (user:deep in c30), with 40 side groups under c0 so that the tree is big.
  for (let i = 1; i <= 30; i++) tuples.push([`group:c${i}#member`, 'member', `group:c${i - 1}`]);
  for (let i = 0; i < 40; i++)
    tuples.push([`group:side${i}#member`, 'member', 'group:c0'], [`user:s${i}`, 'member', `group:side${i}`]);
  tuples.push(['user:deep', 'member', 'group:c30']);
  // A cycle a <-> b with 40 children under a.
  tuples.push(['group:a#member', 'member', 'group:b'], ['group:b#member', 'member', 'group:a']);
  for (let i = 0; i < 40; i++)
    tuples.push([`group:ac${i}#member`, 'member', 'group:a'], [`user:a${i}`, 'member', `group:ac${i}`]);
  const { both } = setup(tuples);
  t.same(both('group:c0', 'member', 'user:deep'), ['depth', 'depth'], 'thirty hops exceed the limit either way');
  t.same(both('group:c0', 'member', 'user:nobody'), ['depth', 'depth'], 'also when the answer would be false');
  t.same(both('group:c10', 'member', 'user:deep'), [true, true], 'twenty hops resolve');
  t.same(both('group:b', 'member', 'user:a7'), [true, true], 'through a cycle to a member');
  t.same(both('group:a', 'member', 'user:stranger'), [false, false], 'a cycle answers false, not an error');
});

t.test('a userset tuple written after the first check is seen by the next', async (t) => {
  const { index, both } = setup(tree());
  t.same(both('group:g0', 'member', 'user:new'), [false, false]);
  index.add({ user: 'group:extra#member', relation: 'member', object: 'group:g3' });
  index.add({ user: 'user:new', relation: 'member', object: 'group:extra' });
  t.same(both('group:g0', 'member', 'user:new'), [true, true], 'the cached heights were dropped');
  index.remove({ user: 'group:extra#member', relation: 'member', object: 'group:g3' });
  t.same(both('group:g0', 'member', 'user:new'), [false, false], 'and again on delete');
});

t.test('a chain added below a node after a check counts toward the depth limit at once', async (t) => {
  const { index, both } = setup(tree());
  t.same(
    both('group:g0', 'member', 'user:nobody'),
    [false, false],
    'first check: the heights are worked out (and remembered)',
  );
  for (let i = 1; i <= 30; i++)
    index.add({ user: `group:c${i}#member`, relation: 'member', object: i === 1 ? 'group:g0' : `group:c${i - 1}` });
  t.same(
    both('group:g0', 'member', 'user:nobody'),
    ['depth', 'depth'],
    'thirty hops below now: the old height is not used',
  );
});

t.test('heights dropped by a userset write are not kept alive by the entries that used them', async (t) => {
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { index, both } = setup(tree());
  both('group:g0', 'member', 'user:nobody');
  // The instance the check used (same model, no change since), remembered on group:g0's entry.
  const old = new WeakRef(index.usersetHeights(model, MAX_DEPTH));
  index.add({ user: 'group:elsewhere#member', relation: 'member', object: 'group:other' });
  t.not(index.usersetHeights(model, MAX_DEPTH), old.deref(), 'the write dropped them');
  for (let i = 0; i < 3 && old.deref(); i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  t.equal(old.deref(), undefined, 'collected although group:g0 was not checked since');
});
