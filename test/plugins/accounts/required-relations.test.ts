/**
 * `required_relations` of validate_jwt_token, validate_session and session answered by the FGA
 * engine (issue 4: "Wire required_relations ... to the engine"), on a kernel with the account and
 * FGA plugins over the main SQLite database.
 */
import t from 'tap';
import { accountPlugins, authorizationPlugins, basePlugins } from '../../../plugins/default.js';
import { bootTestKernel, testContext } from '../../helpers/kernel.js';
import { BASE_FLAGS, call, callWithContext, PASSWORD, type Auth } from './helpers.js';

const MODEL = `model
  schema 1.1
type user
type doc
  relations
    define owner: [user]
    define viewer: [user] or owner
`;

const tk = await bootTestKernel({
  plugins: [...basePlugins, ...accountPlugins, ...authorizationPlugins],
  flags: BASE_FLAGS,
});
const { kernel } = tk;
t.teardown(() => tk.close());

const admin = () => testContext(kernel, { headers: { 'x-service-admin-secret': 'admin-secret' } });
const { result, ctx } = await callWithContext(kernel, 'signup', {
  email: 'rel@example.com',
  password: PASSWORD,
  confirm_password: PASSWORD,
});
const auth = result as unknown as Auth;
const cookie = ctx.setCookies.find((c) => c.name === 'cookie_session')!.value;
await kernel.invoke('_fga_write_model', admin(), { dsl: MODEL });
await kernel.invoke('_fga_write_tuples', admin(), {
  tuples: [{ user: `user:${auth.user.id}`, relation: 'owner', object: 'doc:1' }],
});

const validate = (required_relations: unknown) =>
  call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
    token_type: 'access_token',
    token: auth.access_token,
    required_relations,
  });

t.test('relations the user holds, directly or computed, make the token valid', async (t) => {
  t.equal((await validate([{ relation: 'owner', object: 'doc:1' }])).is_valid, true, 'direct');
  t.equal(
    (
      await validate([
        { relation: 'viewer', object: 'doc:1' },
        { relation: 'owner', object: 'doc:1' },
      ])
    ).is_valid,
    true,
    'computed, and all of a list',
  );
  const vs = await call<{ is_valid: boolean }>(kernel, 'validate_session', {
    cookie,
    required_relations: [{ relation: 'viewer', object: 'doc:1' }],
  });
  t.equal(vs.is_valid, true, 'validate_session');
});

t.test('one relation not held makes it invalid', async (t) => {
  t.equal((await validate([{ relation: 'viewer', object: 'doc:2' }])).is_valid, false);
  t.equal(
    (
      await validate([
        { relation: 'owner', object: 'doc:1' },
        { relation: 'viewer', object: 'doc:2' },
      ])
    ).is_valid,
    false,
    'one of two',
  );
  const vs = await call<{ is_valid: boolean }>(kernel, 'validate_session', {
    cookie,
    required_relations: [{ relation: 'owner', object: 'doc:2' }],
  });
  t.equal(vs.is_valid, false, 'validate_session');
  await t.rejects(
    call(
      kernel,
      'session',
      { required_relations: [{ relation: 'owner', object: 'doc:2' }] },
      { bearer: auth.access_token },
    ),
    { code: 'permission_denied' },
    'session',
  );
});

t.test('a relation the model cannot answer is a bad request, not a denial', async (t) => {
  await t.rejects(
    validate([{ relation: 'viewer', object: 'doca' }]),
    { code: 'invalid_argument' },
    'an object without a type',
  );
  await t.rejects(
    validate([{ relation: 'viewer', object: 'folder:1' }]),
    { code: 'invalid_argument', message: /folder/ },
    'a type the model does not define',
  );
  await t.rejects(
    validate([{ relation: 'editor', object: 'doc:1' }]),
    { code: 'invalid_argument', message: /editor/ },
    'a relation the type does not define',
  );
  await t.rejects(
    call(kernel, 'validate_session', { cookie, required_relations: [{ relation: 'editor', object: 'doc:1' }] }),
    { code: 'invalid_argument' },
    'validate_session',
  );
});

t.test(
  'before any model is written, a malformed relation is still a bad request; a well-formed one is not granted',
  async (t) => {
    const bare = await bootTestKernel({
      plugins: [...basePlugins, ...accountPlugins, ...authorizationPlugins],
      flags: BASE_FLAGS,
    });
    t.teardown(() => bare.close());
    const signed = (await call(bare.kernel, 'signup', {
      email: 'nomodel@example.com',
      password: PASSWORD,
      confirm_password: PASSWORD,
    })) as unknown as Auth;
    const ask = (required_relations: unknown) =>
      call<{ is_valid: boolean }>(bare.kernel, 'validate_jwt_token', {
        token_type: 'access_token',
        token: signed.access_token,
        required_relations,
      });
    await t.rejects(
      ask([{ relation: 'viewer', object: 'doc1' }]),
      { code: 'invalid_argument', message: "invalid object 'doc1': expected type:id" },
      'an object without a type',
    );
    await t.rejects(
      ask([{ relation: 'view er', object: 'doc:1' }]),
      { code: 'invalid_argument', message: /invalid relation/ },
      'a relation that is no name',
    );
    t.equal(
      (await ask([{ relation: 'viewer', object: 'doc:1' }])).is_valid,
      false,
      'fails closed: no model answers it',
    );
  },
);
