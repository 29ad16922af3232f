/**
 * The FGA semantics suite, run by semantics-<store>.test.ts on each store: the documented
 * scenarios (semantics-scenarios.ts) through check, list objects and list users, then the rules
 * that need their own setup: contextual tuples, cycles, the depth limit, model changes that
 * leave stored tuples behind, write validation, expand, and errors.
 */
import type { Test } from 'tap';
import type { FgaService } from '../../../plugins/fga/service.js';
import { scenarios, tuple, type Scenario } from './semantics-scenarios.js';
import { GROUPS_MODEL } from './models.js';

const typeOf = (ref: string) => ref.slice(0, ref.indexOf(':'));

async function withTuples(svc: FgaService, dsl: string, tuples: string[], fn: () => Promise<void>): Promise<void> {
  await svc.installModel(dsl);
  const written = tuples.map(tuple);
  await svc.writeTuples(written);
  try {
    await fn();
  } finally {
    // Leave an empty store for the next scenario (the model stays: versions are append-only).
    const left = await svc.readTuples({}, 1000);
    if (left.tuples.length > 0) await svc.deleteTuples(left.tuples);
  }
}

async function runScenario(t: Test, svc: FgaService, s: Scenario): Promise<void> {
  await withTuples(svc, s.dsl, s.tuples, async () => {
    const allowed = new Set(s.allowed);
    // Check: the whole grid, as one batch (order preserved) and as single checks.
    const grid: [string, string, string][] = [];
    for (const [object, relations] of s.objects)
      for (const relation of relations) for (const user of s.users) grid.push([user, relation, object]);
    const batch = svc.check(grid.map(([user, relation, object]) => ({ user, relation, object })));
    grid.forEach(([user, relation, object], i) => {
      const key = `${user} ${relation} ${object}`;
      t.equal(batch[i], allowed.has(key), `check ${key}`);
    });
    for (const a of s.allowed)
      t.notOk(!allowed.has(a) || !grid.some((g) => g.join(' ') === a), `allowed triple ${a} is in the grid`);
    // List objects: for every user and every (type, relation) of the grid.
    const typeRelations = new Map<string, Set<string>>();
    for (const [object, relations] of s.objects) {
      const set = typeRelations.get(typeOf(object)) ?? new Set();
      relations.forEach((r) => set.add(r));
      typeRelations.set(typeOf(object), set);
    }
    for (const user of s.users) {
      for (const [type, relations] of typeRelations) {
        for (const relation of relations) {
          const expected = s.objects
            .filter(
              ([o, rels]) => typeOf(o) === type && rels.includes(relation) && allowed.has(`${user} ${relation} ${o}`),
            )
            .map(([o]) => o.slice(type.length + 1))
            .sort();
          const got = svc.listObjects(type, relation, user);
          t.same([...got.ids].sort(), expected, `list objects ${type}#${relation} for ${user}`);
        }
      }
    }
    // List users of type `user` for every object and relation.
    for (const [object, relations] of s.objects) {
      for (const relation of relations) {
        const key = `${object}#${relation}`;
        const expected =
          s.listUsers?.[key] ??
          s.users
            .filter((u) => typeOf(u) === 'user' && !u.includes('#') && allowed.has(`${u} ${relation} ${object}`))
            .sort();
        t.same(svc.listUsers(object, relation, 'user'), expected, `list users ${key} (user)`);
      }
    }
    for (const [object, relation, filter, expected] of s.listUsersets ?? []) {
      t.same(svc.listUsers(object, relation, filter), expected, `list users ${object}#${relation} (${filter})`);
    }
  });
}

/** `group:g1#member` member of `group:g0`, and so on: a member of `group:g<n>` is n userset hops below `group:g0`. */
function groupChain(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `group:g${i + 1}#member member group:g${i}`);
}

export async function semanticsSuite(t: Test, svc: FgaService): Promise<void> {
  for (const s of scenarios) await t.test(s.name, async (t) => runScenario(t, svc, s));

  await t.test('contextual tuples apply to one check only, are validated, and are never stored', async (t) => {
    await withTuples(
      svc,
      scenarios[2].dsl,
      ['folder:root parent folder:a', 'user:anne viewer folder:root'],
      async () => {
        const ctx = [tuple('folder:a parent document:9')];
        const [withCtx, withoutCtx, viaRoot] = svc.check([
          { user: 'user:anne', relation: 'viewer', object: 'document:9', contextualTuples: ctx },
          { user: 'user:anne', relation: 'viewer', object: 'document:9' },
          {
            user: 'user:anne',
            relation: 'can_view',
            object: 'document:9',
            contextualTuples: [...ctx, tuple('user:anne blocked document:9')],
          },
        ]);
        t.equal(withCtx, true, 'a contextual parent grants access through the folder tree');
        t.equal(withoutCtx, false, 'the next check in the same batch does not see it');
        t.equal(viaRoot, false, 'a contextual block is honoured');
        t.same((await svc.readTuples({ object: 'document:9' }, 10)).tuples, [], 'nothing was stored');
        t.throws(
          () =>
            svc.check([
              {
                user: 'user:anne',
                relation: 'viewer',
                object: 'document:9',
                contextualTuples: [tuple('group:x#member viewer document:9')],
              },
            ]),
          /not in the model|not an allowed user type/,
          'a contextual tuple the model does not admit is refused',
        );
      },
    );
  });

  await t.test('cycles answer false; the depth limit is an error; sub-questions are asked once', async (t) => {
    const dsl = GROUPS_MODEL;
    const chain = groupChain(30);
    await withTuples(
      svc,
      dsl,
      [
        'group:a#member member group:b',
        'group:b#member member group:a',
        'user:anne member group:a',
        ...chain,
        'user:deep member group:g30',
      ],
      async () => {
        const [cycleNo, cycleYes] = svc.check([
          { user: 'user:zed', relation: 'member', object: 'group:a' },
          { user: 'user:anne', relation: 'member', object: 'group:b' },
        ]);
        t.equal(cycleNo, false, 'a cycle with no way in answers false, not an error');
        t.equal(cycleYes, true, 'a cycle does not hide a real path');
        t.same(svc.listObjects('group', 'member', 'user:anne').ids.sort(), ['a', 'b'], 'list objects through a cycle');
        t.same(svc.listUsers('group:b', 'member', 'user'), ['user:anne'], 'list users through a cycle');
        t.equal(
          svc.check([{ user: 'user:deep', relation: 'member', object: 'group:g10' }])[0],
          true,
          'twenty hops resolve',
        );
        t.throws(
          () => svc.check([{ user: 'user:deep', relation: 'member', object: 'group:g0' }]),
          /resolution too complex/,
          'thirty hops exceed the limit of 25',
        );
        t.throws(
          () => svc.check([{ user: 'user:nobody', relation: 'member', object: 'group:g0' }]),
          /resolution too complex/,
          'also when the answer would be false',
        );
      },
    );
  });

  await t.test(
    'a branch that decides wins over a sibling too deep, as OpenFGA evaluates branches at once',
    async (t) => {
      const dsl = `${GROUPS_MODEL}type doc
  relations
    define owner: [user]
    define blocked: [user]
    define grouped: [group#member]
    define viewer: grouped or owner
    define both: grouped and owner
    define allowed: owner but not grouped
    define shown: grouped but not blocked
`;
      // group:g0's members lie thirty userset hops down: asking about them is a depth error.
      const chain = groupChain(30);
      await withTuples(
        svc,
        dsl,
        [...chain, 'group:g0#member grouped doc:1', 'user:anne owner doc:1', 'user:anne blocked doc:1'],
        async () => {
          const one = (user: string, relation: string) => () => svc.check([{ user, relation, object: 'doc:1' }])[0];
          t.equal(one('user:anne', 'viewer')(), true, 'union: the owner branch is true, the deep one does not matter');
          t.throws(
            one('user:bob', 'viewer'),
            /resolution too complex/,
            'union: nothing true, the deep branch is the answer',
          );
          t.equal(one('user:bob', 'both')(), false, 'intersection: the owner branch is false and decides');
          t.throws(
            one('user:anne', 'both'),
            /resolution too complex/,
            'intersection: the other branch true, the deep one is the answer',
          );
          t.equal(one('user:bob', 'allowed')(), false, 'exclusion: a false base decides');
          t.throws(
            one('user:anne', 'allowed'),
            /resolution too complex/,
            'exclusion: a true base with a deep subtracted side is the error',
          );
          t.equal(one('user:anne', 'shown')(), false, 'exclusion: a true subtracted side decides over a deep base');
          t.same(svc.listObjects('doc', 'viewer', 'user:anne').ids, ['1'], 'list objects agrees with check');
          t.same(
            svc.check([
              { user: 'user:anne', relation: 'viewer', object: 'doc:1' },
              { user: 'user:bob', relation: 'both', object: 'doc:1' },
            ]),
            [true, false],
            'in one batch, each answers as alone',
          );
        },
      );
    },
  );

  await t.test(
    'a remembered answer too deep to reuse is evaluated afresh: a batch and a list answer as each check alone',
    async (t) => {
      // The trap: doc:1's `v` is true through `own`, but remembered as deep as its `deep`
      // branch went (19 hops), so doc:10's `pv` (nine parents up) refused it as too deep in a batch
      // and in list objects, while alone it was true.
      const dsl = `${GROUPS_MODEL}type doc
  relations
    define deep: [group#member]
    define own: [user]
    define v: deep or own
    define parent: [doc]
    define pv: v or pv from parent
`;
      // Upward here: group:g0 (anne's) is a member of g1, and so on up to g19.
      const groups = Array.from({ length: 19 }, (_, i) => `group:g${i}#member member group:g${i + 1}`);
      const parents = Array.from({ length: 9 }, (_, i) => `doc:${i + 1} parent doc:${i + 2}`);
      await withTuples(
        svc,
        dsl,
        ['user:anne member group:g0', ...groups, 'group:g19#member deep doc:1', 'user:anne own doc:1', ...parents],
        async () => {
          t.same(svc.check([{ user: 'user:anne', relation: 'pv', object: 'doc:10' }]), [true], 'doc:10 alone');
          t.same(
            svc.check([
              { user: 'user:anne', relation: 'v', object: 'doc:1' },
              { user: 'user:anne', relation: 'pv', object: 'doc:10' },
            ]),
            [true, true],
            'the same after doc:1 in one batch',
          );
          t.same(
            svc.listObjects('doc', 'pv', 'user:anne').ids.sort((a, b) => Number(a) - Number(b)),
            ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'],
            'list objects finds all ten',
          );
        },
      );
    },
  );

  await t.test(
    'computed relations of the same object are not hops (OpenFGA resolves them without a dispatch)',
    async (t) => {
      const relations = Array.from({ length: 30 }, (_, i) => `    define r${i + 1}: r${i}`).join('\n');
      const dsl = `${GROUPS_MODEL}    define m2: member
type doc
  relations
    define r0: [user]
${relations}
`;
      const chain = groupChain(20);
      await withTuples(svc, dsl, ['user:anne r0 doc:1', ...chain, 'user:deep member group:g20'], async () => {
        t.same(
          svc.check([{ user: 'user:anne', relation: 'r30', object: 'doc:1' }]),
          [true],
          'thirty computed relations over one tuple resolve',
        );
        t.same(
          svc.check([{ user: 'user:bob', relation: 'r30', object: 'doc:1' }]),
          [false],
          'and answer false for someone else',
        );
        t.same(svc.listObjects('doc', 'r30', 'user:anne').ids, ['1'], 'list objects through them');
        t.same(svc.listUsers('doc:1', 'r30', 'user'), ['user:anne'], 'list users through them');
        t.same(
          svc.check([
            { user: 'user:deep', relation: 'member', object: 'group:g0' },
            { user: 'user:deep', relation: 'm2', object: 'group:g0' },
          ]),
          [true, true],
          'a computed relation over twenty userset hops reaches as far as the relation it names',
        );
      });
      // A chain of 1400 must not overflow the evaluator's stack (a 500). Past 256 nested
      // computed relations it is the same 400 as too many hops.
      const long = Array.from({ length: 1400 }, (_, i) => `    define c${i + 1}: c${i}`).join('\n');
      await withTuples(
        svc,
        `model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define c0: [user]\n${long}\n`,
        ['user:anne c0 doc:1'],
        async () => {
          t.same(
            svc.check([{ user: 'user:anne', relation: 'c256', object: 'doc:1' }]),
            [true],
            '256 nested computed relations resolve',
          );
          t.throws(
            () => svc.check([{ user: 'user:anne', relation: 'c1400', object: 'doc:1' }]),
            { code: 'invalid_argument', message: /more than 256 nested computed relations/ },
            '1400 are invalid_argument',
          );
        },
      );
    },
  );

  await t.test('a model change leaves stored tuples that no longer fit ignored, not deleted', async (t) => {
    const v1 = `model
  schema 1.1
type user
type team
  relations
    define member: [user]
type doc
  relations
    define viewer: [user, team#member]
`;
    const v2 = `model
  schema 1.1
type user
type team
  relations
    define member: [user]
type doc
  relations
    define viewer: [user]
`;
    await withTuples(
      svc,
      v1,
      ['user:anne member team:x', 'team:x#member viewer doc:1', 'user:beth viewer doc:1'],
      async () => {
        t.equal(
          svc.check([{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }])[0],
          true,
          'under v1 the team grants access',
        );
        const installed = await svc.installModel(v2);
        t.equal((await svc.getModel()).id, installed.id, 'reads use the latest version');
        t.equal(
          svc.check([{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }])[0],
          false,
          'under v2 the userset tuple is ignored',
        );
        t.equal(
          svc.check([{ user: 'user:beth', relation: 'viewer', object: 'doc:1' }])[0],
          true,
          'tuples that still fit keep working',
        );
        t.same(svc.listUsers('doc:1', 'viewer', 'user'), ['user:beth'], 'list users ignores it too');
        t.same(svc.listObjects('doc', 'viewer', 'user:anne').ids, [], 'list objects ignores it too');
        t.equal((await svc.readTuples({ object: 'doc:1' }, 10)).tuples.length, 2, 'but it is still stored');
        await t.rejects(
          svc.writeTuples([tuple('team:y#member viewer doc:2')]),
          /not an allowed user type/,
          'and new ones are refused',
        );
      },
    );
  });

  await t.test('writes are validated against the latest model', async (t) => {
    await withTuples(svc, scenarios[0].dsl, ['user:anne owner document:1'], async () => {
      const bad: [string, RegExp][] = [
        ['user:anne owner folder:1', /type 'folder' is not in the model/],
        ['user:anne reader document:1', /relation 'reader' is not defined/],
        ['user:* owner document:1', /'user:\*' is not an allowed user type/],
        ['group:x#member viewer document:1', /'group#member' is not an allowed user type/],
        ['anne owner document:1', /user must be type:id/],
        ['user:anne owner document', /object must be type:id/],
        // OpenFGA's tuple format (pkg/tuple): no `:` inside an id, of an object or a user.
        ['user:anne owner document:x:y', /object must be type:id/],
        ['user:a:b owner document:1', /user must be type:id/],
      ];
      for (const [s, re] of bad) await t.rejects(svc.writeTuples([tuple(s)]), re, `refused: ${s}`);
      await t.rejects(
        svc.writeTuples([tuple('user:anne owner document:1')]),
        /already exists/,
        'writing an existing tuple is refused',
      );
      await t.rejects(
        svc.deleteTuples([tuple('user:zed owner document:1')]),
        /does not exist/,
        'deleting a missing tuple is refused',
      );
      await t.rejects(
        svc.writeTuples([tuple('user:beth owner document:1'), tuple('user:anne owner document:1')]),
        /already exists/,
        'a batch with one bad tuple',
      );
      t.equal(
        svc.check([{ user: 'user:beth', relation: 'owner', object: 'document:1' }])[0],
        false,
        'writes nothing at all',
      );
      t.throws(
        () => svc.check([{ user: 'user:anne', relation: 'nope', object: 'document:1' }]),
        /relation 'nope' is not defined/,
        'check of an unknown relation',
      );
      t.throws(
        () => svc.check([{ user: 'user:anne', relation: 'owner', object: 'folder:1' }]),
        /type 'folder' is not defined/,
        'check of an unknown type',
      );
      t.throws(
        () => svc.check([{ user: 'user:a:b', relation: 'owner', object: 'document:1' }]),
        /invalid/,
        'check of a user whose id holds a colon',
      );
      t.throws(
        () => svc.check([{ user: 'user:anne', relation: 'owner', object: 'document:1:2' }]),
        /invalid/,
        'check of an object whose id holds a colon',
      );
    });
  });

  await t.test('an implicit tuple is refused on write and admitted as a contextual tuple (as OpenFGA)', async (t) => {
    const dsl = `model
  schema 1.1
type user
type document
  relations
    define viewer: [user, document#viewer]
`;
    await withTuples(svc, dsl, ['user:anne viewer document:2'], async () => {
      await t.rejects(
        svc.writeTuples([tuple('document:1#viewer viewer document:1')]),
        /cannot write a tuple that is implicit/,
      );
      t.equal((await svc.readTuples({ object: 'document:1' }, 10)).tuples.length, 0, 'nothing was stored');
      const self = { user: 'document:1#viewer', relation: 'viewer', object: 'document:1' };
      t.same(svc.check([self, { ...self, contextualTuples: [tuple('document:1#viewer viewer document:1')] }]), [
        true,
        true,
      ]);
      t.same(
        svc.listUsers('document:1', 'viewer', 'document#viewer'),
        ['document:1#viewer'],
        'the userset defines itself in list users',
      );
    });
  });

  await t.test('expand shows one level of the userset tree', async (t) => {
    await withTuples(
      svc,
      scenarios[2].dsl,
      ['folder:root parent document:1', 'user:dana viewer document:1'],
      async () => {
        const tree = JSON.parse(svc.expand('document:1', 'viewer')) as unknown;
        t.same(tree, {
          root: {
            name: 'document:1#viewer',
            union: {
              nodes: [
                { name: 'document:1#viewer', leaf: { users: { users: ['user:dana'] } } },
                {
                  name: 'document:1#viewer',
                  leaf: {
                    tupleToUserset: { tupleset: 'document:1#parent', computed: [{ userset: 'folder:root#viewer' }] },
                  },
                },
              ],
            },
          },
        });
        const can = JSON.parse(svc.expand('document:1', 'can_view')) as { root: { difference?: unknown } };
        t.ok(can.root.difference, 'exclusion expands to a difference node');
      },
    );
  });

  await t.test('reading tuples pages with a continuation token', async (t) => {
    const many = Array.from({ length: 7 }, (_, i) => `user:u${i} commenter document:p`);
    await withTuples(svc, scenarios[0].dsl, [...many, 'user:anne owner document:q'], async () => {
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await svc.readTuples({ object: 'document:p' }, 3, token);
        seen.push(...page.tuples.map((x) => x.user));
        token = page.continuationToken || undefined;
        pages++;
      } while (token && pages < 10);
      t.same(seen.sort(), many.map((m) => m.split(' ')[0]).sort(), 'every matching tuple once, across pages');
      t.same((await svc.readTuples({ object: 'document:' }, 100)).tuples.length, 8, 'type-only object filter');
      t.same(
        (await svc.readTuples({ user: 'user:anne', relation: 'owner' }, 100)).tuples,
        [tuple('user:anne owner document:q')],
        'user and relation filter',
      );
    });
  });

  await t.test('a delete between pages skips nothing: the token continues after the last tuple returned', async (t) => {
    const many = Array.from({ length: 6 }, (_, i) => `user:d${i} commenter document:r`);
    await withTuples(svc, scenarios[0].dsl, many, async () => {
      const first = await svc.readTuples({ object: 'document:r' }, 2);
      t.equal(first.tuples.length, 2);
      await svc.deleteTuples([first.tuples[0]]);
      const rest: string[] = [];
      let token: string | undefined = first.continuationToken || undefined;
      for (let pages = 0; token && pages < 10; pages++) {
        const page = await svc.readTuples({ object: 'document:r' }, 2, token);
        rest.push(...page.tuples.map((x) => x.user));
        token = page.continuationToken || undefined;
      }
      const expected = many.map((m) => m.split(' ')[0]).filter((u) => !first.tuples.some((x) => x.user === u));
      t.same(rest.sort(), expected.sort(), 'every tuple after the first page, once');
    });
  });
}
