/**
 * Account operations over REST, GraphQL and gRPC on a started server: the happy path on each,
 * and bad input (malformed JSON, missing fields, wrong types, oversized strings, unknown fields)
 * as a clear 4xx in each transport's envelope with no record written.
 */
import t from 'tap';
import { grpcClient } from '../../helpers/grpc-client.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());
const PASSWORD = 'Trans-pass-1';
const json = { 'content-type': 'application/json', origin: server.url };

async function rest(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function gql(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as {
    data?: Record<string, Record<string, unknown> | null>;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
}

async function userCount(): Promise<number> {
  const r = await rest('admin/users', {}, { 'x-service-admin-secret': TEST_ADMIN_SECRET });
  return (r.body.pagination as { total: number }).total;
}

t.test('REST: signup, login, profile (GET with bearer), bad input', async (t) => {
  const s = await rest('signup', { email: 'rest@example.com', password: PASSWORD, confirm_password: PASSWORD });
  t.equal(s.status, 200);
  t.equal((s.body.user as { email: string }).email, 'rest@example.com');
  const dup = await rest('signup', { email: 'rest@example.com', password: PASSWORD, confirm_password: PASSWORD });
  t.same(dup, { status: 409, body: { code: 'already_exists', message: 'user with given email already exists' } });
  const before = await userCount();
  const bad: [string, string | object][] = [
    ['malformed JSON', '{"email": "x@example.com", '],
    ['missing field', { email: 'x@example.com', password: PASSWORD }],
    ['wrong type', { email: 'x@example.com', password: PASSWORD, confirm_password: PASSWORD, roles: 'user' }],
    ['oversized', { email: `${'x'.repeat(400)}@example.com`, password: PASSWORD, confirm_password: PASSWORD }],
    ['unknown field', { email: 'x@example.com', password: PASSWORD, confirm_password: PASSWORD, is_admin: true }],
    // Deep enough to overflow the stack of a recursive walk (a 500 before MAX_INPUT_DEPTH).
    [
      'nested 200000 levels deep',
      `{"email":"x@example.com","password":"${PASSWORD}","confirm_password":"${PASSWORD}","app_data":{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`,
    ],
    // PostgreSQL refuses U+0000 in text (a 500 before it was refused for every database).
    [
      'a NUL character in a name',
      { email: 'x@example.com', password: PASSWORD, confirm_password: PASSWORD, given_name: 'a\u0000b' },
    ],
    // The TEXT column holds 65,535 bytes on MySQL and MariaDB, and every login carries it.
    [
      'app_data over 65535 bytes as JSON',
      { email: 'x@example.com', password: PASSWORD, confirm_password: PASSWORD, app_data: { big: 'x'.repeat(65_530) } },
    ],
    [
      'a lone surrogate in a password',
      { email: 'x@example.com', password: 'Pass\ud800w0rd!', confirm_password: 'Pass\ud800w0rd!' },
    ],
    [
      'a NUL character in an app_data key',
      { email: 'x@example.com', password: PASSWORD, confirm_password: PASSWORD, app_data: { 'k\u0000': 1 } },
    ],
    [
      'nested 65 levels deep',
      {
        email: 'x@example.com',
        password: PASSWORD,
        confirm_password: PASSWORD,
        app_data: { a: JSON.parse(`${'['.repeat(64)}${']'.repeat(64)}`) },
      },
    ],
  ];
  for (const [what, body] of bad) {
    const r = await rest('signup', body);
    t.equal(r.status, 400, `${what}: 400`);
    t.equal(r.body.code, 'invalid_argument', `${what}: invalid_argument`);
    t.type(r.body.message, 'string');
  }
  // The message names the field and what is wrong with it.
  const told: [string, object, string][] = [
    [
      'missing field',
      { email: 'x@example.com', password: PASSWORD },
      'invalid confirm_password: expected required property',
    ],
    [
      'wrong type',
      { email: 'x@example.com', password: PASSWORD, confirm_password: PASSWORD, roles: 'user' },
      'invalid roles: expected array',
    ],
    [
      'oversized',
      { email: `${'x'.repeat(400)}@example.com`, password: PASSWORD, confirm_password: PASSWORD },
      'invalid email: expected string length less or equal to 320',
    ],
    [
      'unknown field',
      { email: 'x@example.com', password: PASSWORD, confirm_password: PASSWORD, is_admin: true },
      'invalid is_admin: unexpected property',
    ],
  ];
  for (const [what, body, message] of told)
    t.equal((await rest('signup', body)).body.message, message, `${what}: the message`);
  const nested = await rest('signup', {
    email: 'x@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
    app_data: { prefs: { 'k\u0000': 1 } },
  });
  t.equal(
    nested.body.message,
    'invalid app_data.prefs.k: must not contain the NUL character (U+0000)',
    'a bad key deep in app_data is named by its whole path',
  );
  t.equal(await userCount(), before, 'nothing written');
  const wrong = await rest('login', { email: 'rest@example.com', password: 'nope-nope' });
  t.same(wrong, { status: 401, body: { code: 'unauthenticated', message: 'bad user credentials' } });
  const l = await rest('login', { email: 'rest@example.com', password: PASSWORD });
  const profile = await fetch(`${server.url}/v1/profile`, {
    headers: { authorization: `Bearer ${l.body.access_token as string}` },
  });
  t.equal(profile.status, 200);
  t.equal(((await profile.json()) as { email: string }).email, 'rest@example.com');
  const anon = await fetch(`${server.url}/v1/profile`);
  t.equal(anon.status, 401);
});

t.test(
  'REST: operations without input (logout, deactivate_account) take no body or {} and refuse any other',
  async (t) => {
    await rest('signup', { email: 'noinput@example.com', password: PASSWORD, confirm_password: PASSWORD });
    const login = await rest('login', { email: 'noinput@example.com', password: PASSWORD });
    const bearer = { authorization: `Bearer ${login.body.access_token as string}` };
    const bad: [string, string][] = [
      ['an array', '[]'],
      ['a string', '"x"'],
      ['a number', '1'],
      ['an unknown field', '{"password":"x"}'],
      ['a number that is not finite', '[1e400]'],
    ];
    for (const path of ['deactivate_account', 'logout']) {
      for (const [what, body] of bad) {
        const r = await rest(path, body, bearer);
        t.equal(r.status, 400, `${path}, ${what}: 400`);
        t.equal(r.body.code, 'invalid_argument', `${path}, ${what}: invalid_argument`);
      }
    }
    const profile = await fetch(`${server.url}/v1/profile`, { headers: bearer });
    t.equal(profile.status, 200, 'the refused calls did nothing: the account is active and the session alive');
    const out = await rest('logout', {}, bearer);
    t.equal(out.status, 200, 'an empty object is no input');
    const again = await rest('login', { email: 'noinput@example.com', password: PASSWORD });
    const empty = await fetch(`${server.url}/v1/logout`, {
      method: 'POST',
      headers: { origin: server.url, authorization: `Bearer ${again.body.access_token as string}` },
    });
    t.equal(empty.status, 200, 'no body at all is no input');
  },
);

t.test("nulls inside app_data are the caller's data: kept over REST and GraphQL", async (t) => {
  const appData = { a: null, b: { c: null, d: [null, 1] } };
  const s = await rest('signup', {
    email: 'nulls@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
    app_data: appData,
  });
  t.equal(s.status, 200);
  const bearer = { authorization: `Bearer ${s.body.access_token as string}` };
  const profile = await fetch(`${server.url}/v1/profile`, { headers: bearer });
  t.strictSame(((await profile.json()) as { app_data: unknown }).app_data, appData, 'REST profile');
  const updated = await gql(
    'mutation u($p: UpdateProfileRequest!) { update_profile(params: $p) { message } }',
    { p: { app_data: { x: null } } },
    bearer,
  );
  t.notOk(updated.errors, 'GraphQL update_profile with a null inside app_data');
  const after = await gql('query { profile { app_data } }', {}, bearer);
  t.strictSame(after.data?.profile?.app_data, { x: null }, 'GraphQL profile');
});

t.test('GraphQL: signup, duplicates and bad variables', async (t) => {
  const q =
    'mutation s($data: SignUpRequest!) { signup(params: $data) { message access_token user { id email roles } } }';
  const ok = await gql(q, { data: { email: 'gql@example.com', password: PASSWORD, confirm_password: PASSWORD } });
  t.equal(ok.errors, undefined);
  t.equal((ok.data?.signup?.user as { email: string }).email, 'gql@example.com');
  const dup = await gql(q, { data: { email: 'gql@example.com', password: PASSWORD, confirm_password: PASSWORD } });
  t.match(dup.errors, [{ message: 'user with given email already exists', extensions: { code: 'ALREADY_EXISTS' } }]);
  const before = await userCount();
  const unknown = await gql(q, {
    data: { email: 'g2@example.com', password: PASSWORD, confirm_password: PASSWORD, evil: 1 },
  });
  t.ok(unknown.errors?.length, 'unknown field refused');
  const long = await gql(q, {
    data: { email: 'g3@example.com', given_name: 'n'.repeat(3000), password: PASSWORD, confirm_password: PASSWORD },
  });
  t.match(long.errors, [{ extensions: { code: 'INVALID_ARGUMENT' } }]);
  // Written out by hand: JSON.stringify itself cannot serialize that depth.
  const deepVariables = `{"data":{"email":"g4@example.com","password":"${PASSWORD}","confirm_password":"${PASSWORD}","app_data":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`;
  const deepRes = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: json,
    body: `{"query":${JSON.stringify(q)},"variables":${deepVariables}}`,
  });
  const deep = (await deepRes.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
  t.match(
    deep.errors,
    [{ message: /nested more than 64 levels deep/, extensions: { code: 'INVALID_ARGUMENT' } }],
    'deep variables',
  );
  t.equal(await userCount(), before, 'nothing written');
  const admin = await gql(
    'query { _users(params: { query: "GQL@" }) { pagination { total } users { email } } }',
    {},
    { 'x-service-admin-secret': TEST_ADMIN_SECRET },
  );
  t.same(admin.data?._users, { pagination: { total: 1 }, users: [{ email: 'gql@example.com' }] });
  const revoke = await gql(
    'mutation r($p: UpdateAccessRequest!) { _revoke_access(param: $p) { message } }',
    { p: { user_id: (ok.data?.signup?.user as { id: string }).id } },
    { 'x-service-admin-secret': TEST_ADMIN_SECRET },
  );
  t.equal(revoke.errors, undefined);
  const meta = await gql(
    'query { _admin_meta { roles default_roles protected_roles } }',
    {},
    { 'x-service-admin-secret': TEST_ADMIN_SECRET },
  );
  t.same(meta.data?._admin_meta, { roles: ['user'], default_roles: ['user'], protected_roles: [] });
});

t.test(
  'GraphQL: session changes state, so it runs from a POST only (no cross-site GET rotates a session)',
  async (t) => {
    const res = await fetch(`${server.url}/v1/signup`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'gql-get@example.com', password: PASSWORD, confirm_password: PASSWORD }),
    });
    const cookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('cookie_session='))!
      .split(';')[0];
    const viaGet = await fetch(
      `${server.url}/graphql?query=${encodeURIComponent('{ session { message access_token } }')}`,
      { headers: { cookie } },
    );
    const body = (await viaGet.json()) as {
      data?: { session: unknown } | null;
      errors?: { message: string; extensions?: { code?: string } }[];
    };
    t.equal(body.errors?.[0]?.extensions?.code, 'METHOD_NOT_ALLOWED');
    t.match(body.errors?.[0]?.message, /send it with POST/);
    t.same(viaGet.headers.getSetCookie(), [], 'no cookie was set');
    const profile = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ profile { email } }')}`, {
      headers: { cookie },
    });
    t.same(
      ((await profile.json()) as { data: unknown }).data,
      { profile: { email: 'gql-get@example.com' } },
      'the old cookie still works: nothing rotated, and reads still run over GET',
    );
    const viaPost = await gql('{ session { message } }', {}, { cookie });
    t.same(viaPost.data, { session: { message: 'Session refreshed successfully' } }, 'over POST it runs');
  },
);

t.test('gRPC: signup, login, profile with bearer metadata, bad input', async (t) => {
  const client = grpcClient(server.grpcAddress, [...server.kernel.operations.values()]);
  t.teardown(() => client.close());
  const s = await client.call('signup', { email: 'grpc@example.com', password: PASSWORD, confirm_password: PASSWORD });
  t.equal((s.response as { user: { email: string } }).user.email, 'grpc@example.com');
  await t.rejects(
    client.call('signup', { email: 'grpc@example.com', password: PASSWORD, confirm_password: PASSWORD }),
    {
      code: 'already_exists',
      message: /user with given email already exists/,
    },
  );
  await t.rejects(client.call('signup', { email: 'grpc2@example.com', password: PASSWORD }), {
    code: 'invalid_argument',
  });
  const l = await client.call('login', { email: 'grpc@example.com', password: PASSWORD });
  const token = (l.response as { access_token: string }).access_token;
  const p = await client.call('profile', {}, { authorization: `Bearer ${token}` });
  t.equal((p.response as { email: string }).email, 'grpc@example.com');
  const v = await client.call('validate_jwt_token', { token_type: 'access_token', token });
  t.equal((v.response as { is_valid: boolean }).is_valid, true);
});

t.test("gRPC: an update can clear a user's roles, as REST's roles: [] does (clear_roles)", async (t) => {
  const client = grpcClient(server.grpcAddress, [...server.kernel.operations.values()]);
  t.teardown(() => client.close());
  const admin = { 'x-service-admin-secret': TEST_ADMIN_SECRET };
  const s = await client.call('signup', {
    email: 'grpc-roles@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  const id = (s.response as { user: { id: string } }).user.id;
  const kept = await client.call('_update_user', { id, given_name: 'Kept', roles: [] }, admin);
  t.same(
    (kept.response as { roles: string[] }).roles,
    ['user'],
    'an empty list alone is "not given" in proto3: roles are kept',
  );
  const cleared = await client.call('_update_user', { id, clear_roles: true }, admin);
  t.same((cleared.response as { roles?: string[] }).roles ?? [], [], 'clear_roles empties them');
  await t.rejects(client.call('_update_user', { id, roles: ['user'], clear_roles: true }, admin), {
    code: 'invalid_argument',
    message: /contradict/,
  });
  const restored = await rest('admin/update_user', { id, roles: ['user'] }, admin);
  t.same((restored.body as { roles: string[] }).roles, ['user'], 'and REST sets them again');
});
