/**
 * Frontiers (frontier.ts): what `viewer from parent` grants through a chain of folders, kept per
 * folder across checks. Every scenario compares the node's own index (which uses frontiers) with
 * a plain reader over the same tuples (which walks every level, never taking a shortcut): same
 * answers, same depth errors, cycles still false, and writes seen by the next check.
 */
import t from 'tap';
import fc from 'fast-check';
import { CompiledModel, Resolver } from '../../../../plugins/fga/engine/index.js';
import { indexAndWalk } from './index-and-walk.js';
import { WILDCARD_GROUPS_MODEL } from '../models.js';
import { MAX_ENTRIES, MAX_NODES } from '../../../../plugins/fga/engine/frontier.js';

const MODEL = `${WILDCARD_GROUPS_MODEL}type folder
  relations
    define parent: [folder]
    define viewer: [user, user:*, group#member] or viewer from parent
type document
  relations
    define parent: [folder]
    define blocked: [user]
    define viewer: [user, group#member] or viewer from parent
    define can_view: viewer but not blocked
`;

function setup(tuples: [string, string, string][], dsl = MODEL) {
  const model = CompiledModel.fromDsl('m', dsl);
  const { index, both } = indexAndWalk(model, tuples);
  /** How many frontiers the index keeps on `object`'s entry. */
  const kept = (object: string) => index.tuplesOf(object)?.frontiers?.byPlan.size ?? 0;
  return { model, index, both, kept };
}

/** folder:f0 <- f1 <- ... <- f<n> (each the parent of the next), document:d in the last one. */
function chain(n: number): [string, string, string][] {
  const tuples: [string, string, string][] = [];
  for (let i = 1; i <= n; i++) tuples.push([`folder:f${i - 1}`, 'parent', `folder:f${i}`]);
  tuples.push([`folder:f${n}`, 'parent', 'document:d']);
  return tuples;
}

t.test('the relations a frontier can stand for are marked, the others not', async (t) => {
  const { model } = setup([]);
  t.equal(model.plan('folder', 'viewer')?.frontier, true, 'direct users or the parent folder');
  t.equal(model.plan('document', 'viewer')?.frontier, true);
  t.equal(model.plan('document', 'can_view')?.frontier, false, 'an exclusion');
  const other = CompiledModel.fromDsl(
    'm2',
    `model
  schema 1.1
type user
type team
  relations
    define owner: [user]
    define member: [user] or owner
type folder
  relations
    define parent: [folder]
    define editor: [user]
    define viewer: [user, team#member] or viewer from parent
    define reader: [user] or editor or reader from parent
`,
  );
  t.equal(other.plan('folder', 'viewer')?.frontier, false, 'admits a userset of a relation that is not closed');
  t.equal(other.plan('folder', 'reader')?.frontier, false, 'a computed relation in the union');
  t.equal(other.plan('folder', 'editor')?.frontier, true, 'direct users alone');
});

t.test('a deep folder chain: the same answers, and the frontiers are kept', async (t) => {
  const tuples = [
    ...chain(12),
    ['user:top', 'viewer', 'folder:f0'],
    ['group:g1#member', 'viewer', 'folder:f4'],
    ['group:g2#member', 'member', 'group:g1'],
    ['user:deep', 'member', 'group:g2'],
    ['user:near', 'viewer', 'folder:f12'],
    ['user:own', 'viewer', 'document:d'],
    ['user:top', 'blocked', 'document:d'],
  ] as [string, string, string][];
  const { both, kept } = setup(tuples);
  for (const user of ['user:top', 'user:deep', 'user:near', 'user:own', 'user:nobody', 'user:*']) {
    for (const relation of ['viewer', 'can_view']) {
      const [frontier, walk] = both('document:d', relation, user);
      t.equal(frontier, walk, `${user} ${relation} document:d`);
    }
    for (const folder of ['folder:f0', 'folder:f5', 'folder:f12']) {
      const [frontier, walk] = both(folder, 'viewer', user);
      t.equal(frontier, walk, `${user} viewer ${folder}`);
    }
  }
  t.same(both('document:d', 'viewer', 'user:deep'), [true, true], 'through a nested group at f4');
  t.same(both('document:d', 'can_view', 'user:top'), [false, false], 'blocked on the document');
  t.ok(kept('folder:f12') > 0 && kept('folder:f0') > 0, 'each folder of the chain keeps its frontier');
});

t.test('usersets as the checked user take the walk, with its self-defining rule', async (t) => {
  const { both } = setup([...chain(3), ['group:g#member', 'viewer', 'folder:f1'], ['user:u', 'viewer', 'folder:f0']]);
  t.same(both('document:d', 'viewer', 'group:g#member'), [true, true], 'a userset granted at f1');
  t.same(both('document:d', 'viewer', 'folder:f2#viewer'), [true, true], 'folder:f2#viewer is a viewer by definition');
  t.same(both('document:d', 'viewer', 'folder:other#viewer'), [false, false]);
});

t.test('wildcards count only where the level admits them', async (t) => {
  // folder#viewer admits user:*, document#viewer does not: a user:* tuple on a folder grants every user.
  const { both } = setup([...chain(2), ['user:*', 'viewer', 'folder:f0']]);
  t.same(both('document:d', 'viewer', 'user:anyone'), [true, true]);
  t.same(both('document:d', 'viewer', 'user:*'), [true, true], 'the wildcard itself');
  const narrow = MODEL.replace(
    'define viewer: [user, user:*, group#member] or viewer from parent',
    'define viewer: [user, group#member] or viewer from parent',
  );
  const stale = setup([...chain(2), ['user:*', 'viewer', 'folder:f0']], narrow);
  t.same(
    stale.both('document:d', 'viewer', 'user:anyone'),
    [false, false],
    'a stored user:* tuple the model no longer admits is ignored',
  );
});

t.test('past the depth limit, the same error; within it, the same answer', async (t) => {
  t.same(
    setup([...chain(30), ['user:u', 'viewer', 'folder:f0']]).both('document:d', 'viewer', 'user:u'),
    ['depth', 'depth'],
    '31 hops to the viewer',
  );
  t.same(
    setup([...chain(30), ['user:u', 'viewer', 'folder:f0']]).both('document:d', 'viewer', 'user:nobody'),
    ['depth', 'depth'],
    'also when false',
  );
  t.same(
    setup([...chain(30), ['user:u', 'viewer', 'folder:f30']]).both('document:d', 'viewer', 'user:u'),
    [true, true],
    'a viewer one hop away decides before the limit',
  );
  t.same(
    setup([...chain(20), ['user:u', 'viewer', 'folder:f0']]).both('document:d', 'viewer', 'user:u'),
    [true, true],
    '21 hops resolve',
  );
  // 20 folder hops, then a userset tree 6 deep at the top: 27 in all.
  const groups: [string, string, string][] = [['group:n0#member', 'viewer', 'folder:f0']];
  for (let i = 1; i <= 6; i++) groups.push([`group:n${i}#member`, 'member', `group:n${i - 1}`]);
  groups.push(['user:leaf', 'member', 'group:n6']);
  t.same(
    setup([...chain(20), ...groups]).both('document:d', 'viewer', 'user:leaf'),
    ['depth', 'depth'],
    'the userset tree above counts',
  );
  t.same(
    setup([...chain(14), ...groups]).both('document:d', 'viewer', 'user:leaf'),
    [true, true],
    'and fits when the chain is shorter',
  );
});

t.test('a cycle of parent folders answers false, not an error, and true where a viewer is on it', async (t) => {
  const cyclic: [string, string, string][] = [
    ['folder:a', 'parent', 'folder:b'],
    ['folder:b', 'parent', 'folder:c'],
    ['folder:c', 'parent', 'folder:a'],
    ['folder:c', 'parent', 'document:d'],
    ['folder:x', 'parent', 'folder:a'],
  ];
  const { both, index } = setup(cyclic);
  t.same(both('document:d', 'viewer', 'user:u'), [false, false]);
  index.add({ user: 'user:u', relation: 'viewer', object: 'folder:x' });
  t.same(both('document:d', 'viewer', 'user:u'), [true, true], 'a viewer of a parent of the cycle');
  t.same(both('folder:b', 'viewer', 'user:u'), [true, true]);
});

t.test('on a cycle, whichever folder is asked first, every folder is answered in full', async (t) => {
  // a <- b <- c <- a (each the parent of the next), a document in each, and user:u a viewer of a
  // folder x above one of them. A frontier cut short where the cycle closes, and kept, would
  // miss x for the folders asked later.
  const orders = [
    ['a', 'b', 'c'],
    ['a', 'c', 'b'],
    ['b', 'a', 'c'],
    ['b', 'c', 'a'],
    ['c', 'a', 'b'],
    ['c', 'b', 'a'],
  ];
  let compared = 0;
  for (const above of ['a', 'b', 'c']) {
    for (const order of orders) {
      const { both } = setup([
        ['folder:b', 'parent', 'folder:a'],
        ['folder:c', 'parent', 'folder:b'],
        ['folder:a', 'parent', 'folder:c'],
        ['folder:x', 'parent', `folder:${above}`],
        ['user:u', 'viewer', 'folder:x'],
        ['folder:a', 'parent', 'document:da'],
        ['folder:b', 'parent', 'document:db'],
        ['folder:c', 'parent', 'document:dc'],
      ]);
      for (const f of order) {
        t.same(
          both(`document:d${f}`, 'viewer', 'user:u'),
          [true, true],
          `x above ${above}, asked ${order.join(',')}: document:d${f}`,
        );
        compared++;
      }
    }
  }
  t.equal(compared, 54);
});

t.test('past the size caps the walk answers, the same way', async (t) => {
  // More viewers on one folder than a frontier holds (MAX_ENTRIES).
  const crowd: [string, string, string][] = [...chain(3)];
  for (let i = 0; i <= MAX_ENTRIES; i++) crowd.push([`user:v${i}`, 'viewer', 'folder:f0']);
  const wide = setup(crowd);
  t.same(wide.both('document:d', 'viewer', 'user:v7'), [true, true]);
  t.same(wide.both('document:d', 'viewer', 'user:stranger'), [false, false]);
  t.equal(
    wide.index.tuplesOf('folder:f3')?.frontiers?.byPlan.get(wide.model.plan('folder', 'viewer')!),
    null,
    'no frontier kept for it',
  );
  // More ancestors than one build visits (MAX_NODES): every folder of a ladder has two parents.
  const ladder: [string, string, string][] = [
    ['folder:top', 'parent', 'folder:l0a'],
    ['folder:top', 'parent', 'folder:l0b'],
    ['user:u', 'viewer', 'folder:top'],
  ];
  for (let i = 1; i < 12; i++) {
    for (const side of ['a', 'b'])
      ladder.push(
        [`folder:l${i - 1}a`, 'parent', `folder:l${i}${side}`],
        [`folder:l${i - 1}b`, 'parent', `folder:l${i}${side}`],
      );
  }
  for (let i = 0; i < MAX_NODES + 10; i++) ladder.push([`folder:side${i}`, 'parent', 'folder:l11a']);
  ladder.push(['folder:l11a', 'parent', 'document:d']);
  t.same(setup(ladder).both('document:d', 'viewer', 'user:u'), [true, true]);
  t.same(setup(ladder).both('document:d', 'viewer', 'user:other'), [false, false]);
});

t.test('writes after a check are seen by the next one', async (t) => {
  const { both, index } = setup(chain(5));
  t.same(both('document:d', 'viewer', 'user:u'), [false, false]);
  index.add({ user: 'user:u', relation: 'viewer', object: 'folder:f1' });
  t.same(both('document:d', 'viewer', 'user:u'), [true, true], 'a new viewer high up');
  index.remove({ user: 'user:u', relation: 'viewer', object: 'folder:f1' });
  t.same(both('document:d', 'viewer', 'user:u'), [false, false], 'and its removal');
  index.add({ user: 'group:g#member', relation: 'viewer', object: 'folder:f0' });
  t.same(both('document:d', 'viewer', 'user:u'), [false, false]);
  index.add({ user: 'user:u', relation: 'member', object: 'group:g' });
  t.same(both('document:d', 'viewer', 'user:u'), [true, true], 'a new member of a group the frontier holds');
  index.remove({ user: 'folder:f2', relation: 'parent', object: 'folder:f3' });
  t.same(both('document:d', 'viewer', 'user:u'), [false, false], 'a parent link removed');
});

t.test('a write no frontier reads leaves them kept; one it reads drops them', async (t) => {
  const { both, index, model } = setup([
    ...chain(4),
    ['group:g#member', 'viewer', 'folder:f1'],
    ['user:u', 'viewer', 'folder:f0'],
  ]);
  const plan = model.plan('folder', 'viewer')!;
  const kept = () => index.tuplesOf('folder:f4')?.frontiers?.byPlan.get(plan);
  t.same(both('document:d', 'viewer', 'user:v'), [false, false]);
  const first = kept();
  t.ok(first, 'built by the first check');
  index.add({ user: 'user:v', relation: 'member', object: 'group:g' });
  t.same(both('document:d', 'viewer', 'user:v'), [true, true], 'a plain user joining a group the frontier holds');
  index.add({ user: 'folder:f4', relation: 'parent', object: 'document:other' });
  index.add({ user: 'user:w', relation: 'viewer', object: 'document:d' });
  t.same(both('document:d', 'viewer', 'user:w'), [true, true], "a document's own tuples");
  t.equal(kept(), first, 'the same frontier: none of these writes can change it');
  index.add({ user: 'user:x', relation: 'viewer', object: 'folder:f2' });
  t.same(both('document:d', 'viewer', 'user:x'), [true, true], 'a viewer on a folder');
  t.not(kept(), first, 'rebuilt');
  const second = kept();
  index.add({ user: 'group:h#member', relation: 'member', object: 'group:other' });
  t.same(both('document:d', 'viewer', 'user:x'), [true, true]);
  t.not(kept(), second, 'a userset tuple anywhere (the heights a frontier counts) rebuilds it too');
  t.same([...model.frontierReads].sort(), ['folder#parent', 'folder#viewer'], 'what frontiers read, for this model');
});

t.test('a new model does not reuse frontiers built under the old one', async (t) => {
  const tuples: [string, string, string][] = [
    ...chain(3),
    ['group:g#member', 'viewer', 'folder:f0'],
    ['user:u', 'member', 'group:g'],
  ];
  const { index } = setup(tuples);
  const before = CompiledModel.fromDsl('m1', MODEL);
  t.equal(new Resolver(before, index).check('document:d', 'viewer', 'user:u'), true);
  const after = CompiledModel.fromDsl(
    'm2',
    MODEL.replace(
      'define viewer: [user, user:*, group#member] or viewer from parent',
      'define viewer: [user, user:*] or viewer from parent',
    ),
  );
  t.equal(
    new Resolver(after, index).check('document:d', 'viewer', 'user:u'),
    false,
    'folders no longer admit group#member',
  );
  t.equal(new Resolver(before, index).check('document:d', 'viewer', 'user:u'), true, 'and back');
});

t.test('random folder forests: the index with frontiers agrees with the walk', async (t) => {
  const FOLDERS = 8;
  const folder = fc.integer({ min: 0, max: FOLDERS - 1 }).map((i) => `folder:f${i}`);
  const group = fc.integer({ min: 0, max: 3 }).map((i) => `group:g${i}`);
  const user = fc.constantFrom('user:a', 'user:b', 'user:*');
  const parentLink = fc.tuple(folder, folder).map(([p, c]): [string, string, string] => [p, 'parent', c]);
  const tuple = fc.oneof(
    // Parent links weigh double: cycles among the folders are common.
    parentLink,
    parentLink,
    fc
      .tuple(folder, fc.integer({ min: 0, max: 2 }))
      .map(([p, d]): [string, string, string] => [p, 'parent', `document:d${d}`]),
    fc
      .tuple(
        fc.oneof(
          user,
          group.map((g) => `${g}#member`),
        ),
        folder,
      )
      .map(([u, f]): [string, string, string] => [u, 'viewer', f]),
    fc
      .tuple(
        fc.oneof(
          user,
          group.map((g) => `${g}#member`),
        ),
        group,
      )
      .map(([u, g]): [string, string, string] => [u, 'member', g]),
    fc
      .tuple(fc.constantFrom('user:a', 'user:b'), fc.integer({ min: 0, max: 2 }))
      .map(([u, d]): [string, string, string] => [u, 'blocked', `document:d${d}`]),
  );
  // A long chain sometimes, so that the depth limit is in play.
  const extraChain = fc.integer({ min: 0, max: 28 });
  let compared = 0;
  const seen = { true: 0, false: 0, depth: 0 };
  fc.assert(
    fc.property(
      fc.array(tuple, { maxLength: 30 }),
      extraChain,
      fc.array(fc.tuple(fc.boolean(), tuple), { maxLength: 6 }),
      (tuples, n, writes) => {
        // Each document in a folder; folder:f0 below a chain c0 <- c1 <- ... <- c<n> of n more
        // levels, with user:a a viewer halfway up and group:g0 at the top.
        const all: [string, string, string][] = [
          ...tuples,
          ['folder:f0', 'parent', 'document:d0'],
          ['folder:f1', 'parent', 'document:d1'],
          ['folder:f2', 'parent', 'document:d2'],
        ];
        for (let i = 1; i <= n; i++) all.push([`folder:c${i - 1}`, 'parent', `folder:c${i}`]);
        if (n > 0)
          all.push(
            [`folder:c${n}`, 'parent', 'folder:f0'],
            ['user:a', 'viewer', `folder:c${Math.floor(n / 2)}`],
            ['group:g0#member', 'viewer', 'folder:c0'],
          );
        const { both, index } = setup(all);
        const agree = (): boolean => {
          for (const object of ['document:d0', 'document:d1', 'document:d2', 'folder:f0', 'folder:f3']) {
            for (const relation of object.startsWith('document') ? ['viewer', 'can_view'] : ['viewer']) {
              for (const u of ['user:a', 'user:b', 'user:c', 'group:g1#member']) {
                const [frontier, walk] = both(object, relation, u);
                if (frontier !== walk) return false;
                compared++;
                seen[String(frontier) as keyof typeof seen]++;
              }
            }
          }
          return true;
        };
        if (!agree()) return false;
        // Then writes and deletes, each followed by every question again: a frontier kept across a
        // write that could change it would answer differently from the walk.
        for (const [add, [user, relation, object]] of writes) {
          if (add) index.add({ user, relation, object });
          else index.remove({ user, relation, object });
          if (!agree()) return false;
        }
        return true;
      },
    ),
    { numRuns: 300, seed: 20261127 },
  );
  t.ok(compared > 300 * 32 * 2, `every question of every run compared, after each write too (${compared})`);
  // The generator reaches every kind of answer, so the comparison covers each.
  t.ok(seen.true > 500 && seen.false > 500 && seen.depth > 100, `answers: ${JSON.stringify(seen)}`);
});
