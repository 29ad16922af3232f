/**
 * The tuple index keeps parsed views of each entry's users (tuple-to-userset parents, usersets
 * taken apart: direct-users.ts) from one check to the next. A tuple written or deleted after a
 * check must be seen by the next check on the same index, on each side of an entry.
 */
import t from 'tap';
import { CompiledModel, Resolver, TupleIndex } from '../../../../plugins/fga/engine/index.js';
import { DirectUsers } from '../../../../plugins/fga/engine/direct-users.js';

const MODEL = `model
  schema 1.1
type user
type group
  relations
    define member: [user]
type folder
  relations
    define viewer: [user, group#member]
type doc
  relations
    define parent: [folder]
    define viewer: [user, user:*, group#member] or viewer from parent
`;
const model = CompiledModel.fromDsl('m', MODEL);
const tuple = (user: string, relation: string, object: string) => ({ user, relation, object });

t.test('a parent written or deleted after a check is seen by the next check', async (t) => {
  const index = new TupleIndex();
  index.add(tuple('folder:a', 'parent', 'doc:d'));
  index.add(tuple('user:ann', 'viewer', 'folder:b'));
  const check = (user: string) => new Resolver(model, index).check('doc:d', 'viewer', user);
  t.equal(check('user:ann'), false, 'folder:a grants nothing');
  index.add(tuple('folder:b', 'parent', 'doc:d'));
  t.equal(check('user:ann'), true, 'the new parent folder:b is followed');
  // A plain user on the tupleset's entry's other side must not drop or corrupt the parent view.
  index.add(tuple('user:bob', 'viewer', 'doc:d'));
  t.equal(check('user:bob'), true);
  t.equal(check('user:ann'), true);
  index.remove(tuple('folder:b', 'parent', 'doc:d'));
  t.equal(check('user:ann'), false, 'and no longer once it is deleted');
});

t.test('a userset written or deleted after a check is seen by the next check', async (t) => {
  const index = new TupleIndex();
  index.add(tuple('user:ann', 'member', 'group:g'));
  index.add(tuple('user:cid', 'member', 'group:h'));
  index.add(tuple('group:g#member', 'viewer', 'folder:f'));
  const check = (user: string) => new Resolver(model, index).check('folder:f', 'viewer', user);
  t.equal(check('user:ann'), true);
  t.equal(check('user:cid'), false);
  index.add(tuple('group:h#member', 'viewer', 'folder:f'));
  t.equal(check('user:cid'), true, 'the new userset is followed');
  index.remove(tuple('group:g#member', 'viewer', 'folder:f'));
  t.equal(check('user:ann'), false, 'the deleted one is not');
  t.equal(check('user:cid'), true);
});

t.test('views: parents are plain objects only, usersets taken apart, both in insertion order', async (t) => {
  const users = new DirectUsers(
    new Set(['folder:x', 'user:*', 'folder:y']),
    new Set(['group:g#member', 'team:t:1#admin']),
  );
  t.same(users.objects(), [
    { object: 'folder:x', type: 'folder' },
    { object: 'folder:y', type: 'folder' },
  ]);
  t.same(users.usersets(), [
    { user: 'group:g#member', object: 'group:g', relation: 'member', shape: 'group#member' },
    { user: 'team:t:1#admin', object: 'team:t:1', relation: 'admin', shape: 'team#admin' },
  ]);
  t.equal(users.objects(), users.objects(), 'kept between calls');
  const before = users.usersets();
  users.changed(false);
  t.equal(users.usersets(), before, 'a change of the plain side keeps the userset view');
  users.changed(true);
  t.not(users.usersets(), before, 'a change of the userset side drops it');
});

t.test('an object whose tuples all went and came back is followed to its new entry', async (t) => {
  const index = new TupleIndex();
  index.add(tuple('folder:b', 'parent', 'doc:d'));
  index.add(tuple('user:ann', 'viewer', 'folder:b'));
  index.add(tuple('group:g#member', 'viewer', 'folder:f'));
  index.add(tuple('user:cid', 'member', 'group:g'));
  const doc = (user: string) => new Resolver(model, index).check('doc:d', 'viewer', user);
  const folder = (user: string) => new Resolver(model, index).check('folder:f', 'viewer', user);
  t.equal(doc('user:ann'), true, 'through the parent (its entry now remembered by the view)');
  t.equal(folder('user:cid'), true, 'through the userset (likewise)');
  index.remove(tuple('user:ann', 'viewer', 'folder:b'));
  index.remove(tuple('user:cid', 'member', 'group:g'));
  t.equal(doc('user:ann'), false, 'the parent has no tuples left');
  t.equal(folder('user:cid'), false, 'the group has no members left');
  index.add(tuple('user:ann', 'viewer', 'folder:b'));
  index.add(tuple('user:cid', 'member', 'group:g'));
  t.equal(doc('user:ann'), true, 'the parent has tuples again');
  t.equal(folder('user:cid'), true, 'the group has a member again');
  index.clear();
  for (const x of [tuple('folder:b', 'parent', 'doc:d'), tuple('user:bob', 'viewer', 'folder:b')]) index.add(x);
  t.equal(doc('user:ann'), false, 'after a reload, only the new tuples count');
  t.equal(doc('user:bob'), true);
});
