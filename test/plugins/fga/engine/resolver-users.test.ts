/**
 * One resolver serves a whole batch, which may name several users: each user's remembered
 * answers (and the usersets it reaches) must stay its own when the batch goes back and forth.
 */
import t from 'tap';
import { CompiledModel, Resolver, TupleIndex } from '../../../../plugins/fga/engine/index.js';

const model = CompiledModel.fromDsl(
  'm',
  `model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
type folder
  relations
    define parent: [folder]
    define viewer: [user, group#member] or viewer from parent
`,
);

t.test('a batch alternating users answers each as a fresh resolver would', async (t) => {
  const index = new TupleIndex();
  // A group tree big enough for the walk up from the user (more than 2 nodes below g0).
  for (let g = 1; g < 8; g++)
    index.add({ user: `group:g${g}#member`, relation: 'member', object: `group:g${Math.floor((g - 1) / 2)}` });
  index.add({ user: 'user:ann', relation: 'member', object: 'group:g5' });
  index.add({ user: 'group:g0#member', relation: 'viewer', object: 'folder:root' });
  index.add({ user: 'user:bob', relation: 'viewer', object: 'folder:side' });
  for (const f of ['a', 'b']) index.add({ user: 'folder:root', relation: 'parent', object: `folder:${f}` });
  index.add({ user: 'folder:side', relation: 'parent', object: 'folder:c' });
  const questions: [string, string, string][] = [];
  for (const user of ['user:ann', 'user:bob', 'user:ann', 'user:cid', 'user:bob', 'group:g5#member', 'user:ann']) {
    for (const object of ['folder:a', 'folder:b', 'folder:c', 'folder:root', 'folder:side'])
      questions.push([object, 'viewer', user]);
    for (const object of ['group:g0', 'group:g2', 'group:g5']) questions.push([object, 'member', user]);
  }
  const shared = new Resolver(model, index, { smallTree: 0 });
  let allowed = 0;
  for (const [object, relation, user] of questions) {
    const expected = new Resolver(model, index, { smallTree: 0 }).check(object, relation, user);
    t.equal(shared.check(object, relation, user), expected, `${user} ${relation} ${object}`);
    if (expected) allowed++;
  }
  t.ok(allowed > 10 && allowed < questions.length - 10, `a mix of answers (${allowed} of ${questions.length} allowed)`);
});
