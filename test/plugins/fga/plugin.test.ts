/**
 * The fga plugin through the kernel pipeline (the one every transport uses): admin model and
 * tuple operations, check_permissions and list_permissions with the `user` trust rule, the
 * audited reset, the `fga` service other plugins use, and the operations' availability.
 * Users and the super-admin are simulated by a tiny plugin whose authenticators read test headers;
 * delegated (agent) callers need real agent tokens, so their checks are in delegated-callers.test.ts.
 */
import t from 'tap';
import { definePlugin } from '../../../core/plugin.js';
import type { DomainEvent } from '../../../core/events.js';
import { fgaPlugin } from '../../../plugins/fga/index.js';
import { bootTestKernel, testContext } from '../../helpers/kernel.js';
import type { Kernel } from '../../../core/kernel.js';
import { MODEL } from './documents-model.js';

const callers = definePlugin({
  name: 'test-callers',
  description: 'Recognises x-test-user as a session and x-test-admin as a super-admin.',
  setup: (ctx) => {
    ctx.authenticate('session', async (rc) => {
      const user = rc.header('x-test-user');
      return user ? { kind: 'user', subject: user } : null;
    });
    ctx.authenticate('admin', async (rc) =>
      rc.header('x-test-admin') ? { kind: 'admin', subject: 'admin:root' } : null,
    );
  },
});

const admin = (k: Kernel) => testContext(k, { headers: { 'x-test-admin': '1' } });
const as = (k: Kernel, user: string) => testContext(k, { headers: { 'x-test-user': user } });

t.test('admin operations, checks and lists on the main SQLite database', async (t) => {
  const { kernel, close } = await bootTestKernel({ plugins: [fgaPlugin, callers] });
  t.teardown(close);
  const events: DomainEvent[] = [];
  kernel.events.on('fga.reset', (e) => void events.push(e));

  t.same(
    await kernel.invoke('_fga_get_model', admin(kernel), undefined),
    { id: '', dsl: '' },
    'an empty store has an empty model',
  );
  await t.rejects(
    kernel.invoke('_fga_write_model', admin(kernel), {
      dsl: 'model\n  schema 1.1\ntype doc\n  relations\n    define viewer: [person]\n',
    }),
    {
      code: 'invalid_argument',
      message: /line 5: `person` is not a valid type/,
    },
    'an invalid model is refused with its line',
  );
  await t.rejects(
    kernel.invoke('_fga_write_model', admin(kernel), { dsl: 'model\n  schema 1.1\n' }),
    {
      code: 'invalid_argument',
      message: 'invalid model: the model defines no type: at least one is needed.',
    },
    'a model without types is refused, as OpenFGA refuses to write one',
  );
  t.same(
    await kernel.invoke('_fga_get_model', admin(kernel), undefined),
    { id: '', dsl: '' },
    'and nothing was installed',
  );
  await t.rejects(
    kernel.invoke('_fga_write_model', as(kernel, 'user:anne'), { dsl: MODEL }),
    { code: 'unauthenticated' },
    'admin only',
  );
  const installed = (await kernel.invoke('_fga_write_model', admin(kernel), { dsl: MODEL })) as {
    id: string;
    dsl: string;
  };
  t.match(installed, { dsl: MODEL }, 'installs a version');
  t.same(await kernel.invoke('_fga_get_model', admin(kernel), undefined), installed, 'and it is the one in force');

  const tuples = [
    { user: 'user:anne', relation: 'member', object: 'group:eng' },
    { user: 'group:eng#member', relation: 'viewer', object: 'folder:f' },
    { user: 'folder:f', relation: 'parent', object: 'document:1' },
    { user: 'folder:f', relation: 'parent', object: 'document:2' },
    { user: 'user:anne', relation: 'blocked', object: 'document:2' },
  ];
  t.same(await kernel.invoke('_fga_write_tuples', admin(kernel), { tuples }), { message: '5 tuple(s) written' });
  await t.rejects(
    kernel.invoke('_fga_write_tuples', admin(kernel), {
      tuples: [{ user: 'user:*', relation: 'viewer', object: 'document:1' }],
    }),
    { code: 'invalid_argument' },
    'validated against the model',
  );
  // 513 characters: longer than the store's columns (a userset may reach 562 by its parts' limits).
  const long = `group:${'g'.repeat(256)}#${'m'.repeat(50)}`.padStart(513, 'x');
  await t.rejects(
    kernel.invoke('_fga_write_tuples', admin(kernel), {
      tuples: [{ user: long, relation: 'viewer', object: 'document:1' }],
    }),
    { code: 'invalid_argument', message: /tuples\.0\.user.*512/ },
    'a user longer than 512 characters',
  );

  const read = (await kernel.invoke('_fga_read_tuples', admin(kernel), { object: 'document:', page_size: 2 })) as {
    tuples: unknown[];
    continuation_token: string;
  };
  t.equal(read.tuples.length, 2, 'reads a page');
  t.ok(read.continuation_token, 'with a token for the next');

  const checks = [
    { relation: 'viewer', object: 'document:1' },
    { relation: 'can_view', object: 'document:2' },
    { relation: 'viewer', object: 'document:2' },
    {
      relation: 'viewer',
      object: 'document:3',
      contextual_tuples: [{ user: 'folder:f', relation: 'parent', object: 'document:3' }],
    },
    { relation: 'viewer', object: 'document:3' },
  ];
  t.same(
    await kernel.invoke('check_permissions', as(kernel, 'user:anne'), { checks }),
    {
      results: [
        { relation: 'viewer', object: 'document:1', allowed: true },
        { relation: 'can_view', object: 'document:2', allowed: false },
        { relation: 'viewer', object: 'document:2', allowed: true },
        { relation: 'viewer', object: 'document:3', allowed: true },
        { relation: 'viewer', object: 'document:3', allowed: false },
      ],
    },
    'answers in order, echoing each pair, with contextual tuples for one check only',
  );
  t.same(
    await kernel.invoke('check_permissions', as(kernel, 'user:anne'), { checks: [checks[0]], user: 'anne' }),
    { results: [{ relation: 'viewer', object: 'document:1', allowed: true }] },
    'a bare id means user:<id>, and naming oneself is allowed',
  );
  await t.rejects(
    kernel.invoke('check_permissions', as(kernel, 'user:beth'), { checks: [checks[0]], user: 'user:anne' }),
    { code: 'permission_denied' },
    'naming someone else is refused',
  );
  t.same(
    await kernel.invoke('check_permissions', admin(kernel), { checks: [checks[0]], user: 'user:beth' }),
    { results: [{ relation: 'viewer', object: 'document:1', allowed: false }] },
    'a super-admin may name anyone',
  );
  const both = testContext(kernel, { headers: { 'x-test-user': 'user:beth', 'x-test-admin': '1' } });
  t.same(
    await kernel.invoke('check_permissions', both, { checks: [checks[0]], user: 'user:anne' }),
    { results: [{ relation: 'viewer', object: 'document:1', allowed: true }] },
    'a super-admin whose request carries a user session too may still name anyone',
  );
  for (const op of ['check_permissions', 'list_permissions']) {
    await t.rejects(
      kernel.invoke(op, admin(kernel), op === 'check_permissions' ? { checks: [checks[0]] } : {}),
      { code: 'invalid_argument', message: 'user is required for an admin caller' },
      `${op}: a super-admin must name the user (the model has no type for its own subject)`,
    );
  }
  const twice = { user: 'folder:f', relation: 'parent', object: 'document:3' };
  await t.rejects(
    kernel.invoke('check_permissions', as(kernel, 'user:anne'), {
      checks: [{ relation: 'viewer', object: 'document:3', contextual_tuples: [twice, { ...twice }] }],
    }),
    { code: 'invalid_argument', message: 'duplicate contextual tuple in request: (folder:f, parent, document:3)' },
    'duplicate contextual tuples are refused, as duplicate writes are',
  );
  await t.rejects(
    kernel.invoke('check_permissions', as(kernel, 'user:anne'), { checks: [] }),
    { code: 'invalid_argument' },
    'at least one check',
  );
  await t.rejects(
    kernel.invoke('check_permissions', as(kernel, 'user:anne'), {
      checks: Array.from({ length: 101 }, () => checks[0]),
    }),
    { code: 'invalid_argument' },
    'at most 100 checks',
  );
  await t.rejects(
    kernel.invoke('check_permissions', testContext(kernel), { checks: [checks[0]] }),
    { code: 'unauthenticated' },
    'a caller is needed',
  );

  t.same(
    await kernel.invoke('list_permissions', as(kernel, 'user:anne'), { relation: 'viewer', object_type: 'document' }),
    {
      objects: ['document:1', 'document:2'],
      permissions: [
        { object: 'document:1', relation: 'viewer' },
        { object: 'document:2', relation: 'viewer' },
      ],
      truncated: false,
    },
    'objects of a type with a relation',
  );
  const all = (await kernel.invoke('list_permissions', as(kernel, 'user:anne'), {})) as {
    permissions: { object: string; relation: string }[];
    truncated: boolean;
  };
  t.same(
    all.permissions.map((p) => `${p.relation} ${p.object}`).sort(),
    [
      'blocked document:2',
      'can_view document:1',
      'member group:eng',
      'viewer document:1',
      'viewer document:2',
      'viewer folder:f',
    ],
    'an empty body lists every permission of the subject',
  );
  const viewers = (await kernel.invoke('list_permissions', as(kernel, 'user:anne'), { relation: 'viewer' })) as {
    permissions: { object: string; relation: string }[];
  };
  t.same(
    viewers.permissions.map((p) => p.object).sort(),
    ['document:1', 'document:2', 'folder:f'],
    'a relation alone: every type that defines it',
  );
  await t.rejects(
    kernel.invoke('list_permissions', as(kernel, 'user:anne'), { relation: 'nope' }),
    { code: 'invalid_argument', message: /relation 'nope' is not defined on any type/ },
    'a relation no type defines',
  );

  t.same(
    await kernel.invoke('_fga_list_users', admin(kernel), {
      object: 'document:1',
      relation: 'viewer',
      user_type: 'user',
    }),
    { users: ['user:anne'] },
  );
  t.same(
    await kernel.invoke('_fga_list_users', admin(kernel), {
      object: 'document:1',
      relation: 'viewer',
      user_type: 'group#member',
    }),
    { users: ['group:eng#member'] },
  );
  const tree = (await kernel.invoke('_fga_expand', admin(kernel), { object: 'folder:f', relation: 'viewer' })) as {
    tree: string;
  };
  t.match(
    JSON.parse(tree.tree),
    { root: { name: 'folder:f#viewer', union: { nodes: [{ leaf: { users: { users: ['group:eng#member'] } } }, {}] } } },
    'expand answers JSON text',
  );

  const fga = kernel.service('fga');
  t.equal(fga.enabled, true);
  t.equal(
    await fga.checkRelations('user:anne', [
      { relation: 'viewer', object: 'document:1' },
      { relation: 'member', object: 'group:eng' },
    ]),
    true,
    'required_relations: all held',
  );
  t.equal(
    await fga.checkRelations('user:anne', [
      { relation: 'viewer', object: 'document:1' },
      { relation: 'can_view', object: 'document:2' },
    ]),
    false,
    'required_relations: one missing',
  );

  await t.rejects(
    kernel.invoke('_fga_reset', admin(kernel), undefined),
    { code: 'failed_precondition', message: /still has tuples/ },
    'reset is refused while tuples exist',
  );
  t.same(await kernel.invoke('_fga_delete_tuples', admin(kernel), { tuples }), { message: '5 tuple(s) deleted' });
  t.same(await kernel.invoke('_fga_reset', admin(kernel), undefined), { message: 'FGA store reset' });
  await kernel.events.drain();
  t.equal(events.length, 1, 'the reset is audited on the event bus');
  t.match(
    events[0]?.payload,
    { actor: 'admin:root', actor_kind: 'admin', ip: '127.0.0.1' },
    'with who did it and from where',
  );
  t.ok(fgaPlugin.events?.includes('fga.reset'), 'and the plugin declares the event it emits');
  t.same(
    await kernel.invoke('_fga_get_model', admin(kernel), undefined),
    { id: '', dsl: '' },
    'after reset the model is empty',
  );
  await t.rejects(
    kernel.invoke('check_permissions', as(kernel, 'user:anne'), { checks: [checks[0]] }),
    { code: 'failed_precondition' },
    'no model, no checks',
  );
});

t.test('FGA is off on a non-SQL-family main database without --fga-store', async (t) => {
  const { kernel, close } = await bootTestKernel({
    plugins: [fgaPlugin, callers],
    flags: { 'database-type': 'libsql' },
  });
  t.teardown(close);
  await t.rejects(
    kernel.invoke('check_permissions', as(kernel, 'user:anne'), { checks: [{ relation: 'viewer', object: 'doc:1' }] }),
    { code: 'failed_precondition' },
  );
  await t.rejects(kernel.invoke('_fga_get_model', admin(kernel), undefined), { code: 'failed_precondition' });
  await t.rejects(kernel.invoke('_fga_write_model', admin(kernel), { dsl: MODEL }), { code: 'failed_precondition' });
  t.equal(kernel.service('fga').enabled, false);
  t.equal(
    await kernel.service('fga').checkRelations('user:anne', [{ relation: 'viewer', object: 'doc:1' }]),
    false,
    'required_relations fail closed',
  );
});

t.test('--fga-store memory puts FGA on a store of its own', async (t) => {
  const { kernel, close } = await bootTestKernel({
    plugins: [fgaPlugin, callers],
    flags: { 'database-type': 'libsql', 'fga-store': 'memory' },
  });
  t.teardown(close);
  await kernel.invoke('_fga_write_model', admin(kernel), { dsl: MODEL });
  await kernel.invoke('_fga_write_tuples', admin(kernel), {
    tuples: [{ user: 'user:anne', relation: 'viewer', object: 'document:1' }],
  });
  t.same(
    await kernel.invoke('check_permissions', as(kernel, 'user:anne'), {
      checks: [{ relation: 'viewer', object: 'document:1' }],
    }),
    {
      results: [{ relation: 'viewer', object: 'document:1', allowed: true }],
    },
  );
});

t.test('configuration rules', async (t) => {
  const { Config } = await import('../../../core/config.js');
  t.match(fgaPlugin.validateConfig!(new Config({ 'fga-store': 'postgres' })), /needs --fga-store-url/);
  t.match(fgaPlugin.validateConfig!(new Config({ 'fga-store-url': 'postgres://x' })), /needs --fga-store/);
  t.match(fgaPlugin.validateConfig!(new Config({ 'fga-store': 'postgresql://x' })), /not a URI/);
  t.equal(fgaPlugin.validateConfig!(new Config({ 'fga-store': 'memory' })), undefined);
  // A bad separate store is refused at start, naming the flags it came from (not the main database's).
  const { openFgaStore } = await import('../../../plugins/fga/open-store.js');
  const refusal = await openFgaStore(
    new Config({ 'fga-store': 'postgres', 'fga-store-url': 'mysql://127.0.0.1/x' }),
    {} as never,
  ).then(
    () => 'opened',
    (err: Error) => err.message,
  );
  t.match(refusal, /--fga-store/);
  t.notMatch(refusal, /--database-/);
  for (const bad of [-1, 2.5]) {
    t.equal(
      fgaPlugin.validateConfig!(new Config({ 'fga-check-cache-size': bad })),
      '--fga-check-cache-size must be a whole number, 0 or more (0 turns the cache off)',
      `cache size ${bad} refused at start, not silently turned off`,
    );
  }
  t.equal(fgaPlugin.validateConfig!(new Config({ 'fga-check-cache-size': 0 })), undefined, '0 turns the cache off');
  t.equal(
    fgaPlugin.validateConfig!(new Config({ 'fga-check-cache-size': 1e10 })),
    '--fga-check-cache-size must be at most 10000000',
    'a size the table cannot be allocated for is refused at start',
  );
  t.equal(
    fgaPlugin.validateConfig!(new Config({ 'fga-check-cache-size': 10_000_000 })),
    undefined,
    'the largest size is taken',
  );
});
