/**
 * The tuple index's reverse side (engine/tuple-index.ts `objectIds`): which objects of a type hold
 * a relation for a user, kept by type, then relation, then user. list objects seeds from it and a
 * check walks a user's memberships up through it, so it must follow every add and remove exactly,
 * and forget a user once its last tuple of that shape is gone.
 */
import t from 'tap';
import { TupleIndex } from '../../../../plugins/fga/engine/tuple-index.js';

const tuple = (user: string, relation: string, object: string) => ({ user, relation, object });
const ids = (index: TupleIndex, type: string, relation: string, user: string) =>
  [...(index.objectIds(type, relation, user) ?? [])].sort();

t.test('each user form is found under its own type and relation, and nowhere else', async (t) => {
  const index = new TupleIndex();
  index.add(tuple('user:anne', 'member', 'group:a'));
  index.add(tuple('user:anne', 'member', 'group:b'));
  index.add(tuple('user:anne', 'viewer', 'folder:a'));
  index.add(tuple('group:a#member', 'member', 'group:root'));
  index.add(tuple('user:*', 'viewer', 'folder:public'));
  t.same(ids(index, 'group', 'member', 'user:anne'), ['a', 'b']);
  t.same(ids(index, 'folder', 'viewer', 'user:anne'), ['a']);
  t.same(ids(index, 'group', 'member', 'group:a#member'), ['root'], 'a userset user');
  t.same(ids(index, 'folder', 'viewer', 'user:*'), ['public'], 'a wildcard');
  t.equal(index.objectIds('folder', 'member', 'user:anne'), undefined, 'another relation of a type that has the user');
  t.equal(index.objectIds('document', 'viewer', 'user:anne'), undefined, 'another type with the same relation');
  t.equal(index.objectIds('group', 'member', 'group:a'), undefined, "the userset's object is not the userset");
  t.equal(index.objectIds('group', 'member', 'user:bob'), undefined, 'a user with no tuples');
});

t.test('adds and removes are followed exactly, and an emptied entry is gone, not empty', async (t) => {
  const index = new TupleIndex();
  t.ok(index.add(tuple('user:anne', 'member', 'group:a')));
  t.notOk(index.add(tuple('user:anne', 'member', 'group:a')), 'a second add of the same tuple changes nothing');
  t.ok(index.add(tuple('user:anne', 'member', 'group:b')));
  t.equal(index.size, 2);

  t.ok(index.remove(tuple('user:anne', 'member', 'group:a')));
  t.same(ids(index, 'group', 'member', 'user:anne'), ['b'], 'the other object stays');
  t.notOk(index.remove(tuple('user:anne', 'member', 'group:a')), 'removing it again changes nothing');
  t.notOk(index.remove(tuple('user:anne', 'member', 'folder:b')), 'nor does removing a tuple never added');
  t.same(ids(index, 'group', 'member', 'user:anne'), ['b']);

  t.ok(index.remove(tuple('user:anne', 'member', 'group:b')));
  t.equal(index.objectIds('group', 'member', 'user:anne'), undefined, 'no empty set left behind');
  t.equal(index.size, 0);

  // Everything removed, then added again: the emptied maps were dropped, and are made afresh.
  t.ok(index.add(tuple('user:anne', 'member', 'group:c')));
  t.same(ids(index, 'group', 'member', 'user:anne'), ['c']);
  index.clear();
  t.equal(index.objectIds('group', 'member', 'user:anne'), undefined, 'clear empties the reverse side too');
});

t.test('the reverse side agrees with the forward side after random writes', async (t) => {
  const index = new TupleIndex();
  const held = new Set<string>();
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const users = ['user:a', 'user:b', 'user:*', 'group:g1#member', 'group:g2#member'];
  let misreported = 0;
  for (let i = 0; i < 3000; i++) {
    const tp = tuple(
      users[rnd(users.length)],
      ['member', 'viewer'][rnd(2)],
      `${['group', 'folder'][rnd(2)]}:o${rnd(6)}`,
    );
    const key = `${tp.object}#${tp.relation}@${tp.user}`;
    if (rnd(3) === 0) {
      if (index.remove(tp) !== held.delete(key)) misreported++;
    } else {
      const fresh = !held.has(key);
      held.add(key);
      if (index.add(tp) !== fresh) misreported++;
    }
  }
  t.equal(misreported, 0, 'add and remove say whether they changed anything, 3000 writes');
  let wrong = 0;
  for (const type of ['group', 'folder']) {
    for (const relation of ['member', 'viewer']) {
      for (const user of users) {
        const want = [...held]
          .filter((k) => k.endsWith(`#${relation}@${user}`) && k.startsWith(`${type}:`))
          .map((k) => k.slice(type.length + 1, k.indexOf('#')))
          .sort();
        const got = index.objectIds(type, relation, user);
        if (want.length === 0 ? got !== undefined : JSON.stringify([...got!].sort()) !== JSON.stringify(want)) wrong++;
      }
    }
  }
  t.equal(wrong, 0, 'every (type, relation, user) lists exactly the objects holding the tuple');
  t.equal(index.size, held.size);
});
