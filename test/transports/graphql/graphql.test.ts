/**
 * The GraphQL transport over real HTTP: a kernel booted with the real admin and meta plugins plus
 * a probe plugin, GraphQL mounted under an embedding prefix, and requests as a browser or the
 * authorizer-js SDK would send them.
 */
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import t from 'tap';
import { ServiceError } from '../../../core/errors.js';
import { adminPlugin } from '../../../plugins/admin/index.js';
import { metaPlugin } from '../../../plugins/meta/index.js';
import { CONTRACT_META_FLAGS } from '../../../plugins/meta/schema.js';
import { serverPlugin } from '../../../plugins/server/index.js';
import { registerGraphql } from '../../../transports/graphql/register.js';
import { bootTestKernel, type TestKernel } from '../../helpers/kernel.js';
import { probePlugin } from './probe-plugin.js';

const ADMIN_SECRET = 'graphql-admin-secret';
const plugins = [serverPlugin, adminPlugin, metaPlugin, probePlugin];
const baseFlags = {
  url: 'http://localhost:8080',
  'client-id': 'gql-client',
  'client-secret': 'gql-secret',
  'admin-secret': ADMIN_SECRET,
};

interface GqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: string[]; extensions?: { code?: string } }[];
}

interface Mounted {
  app: FastifyInstance;
  test: TestKernel;
  hookLog: string[];
}

/** GraphQL inside an encapsulated context under `/auth`, with hooks added before and after. */
async function mount(flags: Record<string, string | boolean> = {}): Promise<Mounted> {
  const test = await bootTestKernel({ plugins, flags: { ...baseFlags, ...flags } });
  const app = Fastify({ logger: false });
  const hookLog: string[] = [];
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (request) => {
        hookLog.push(`before ${request.url}`);
      });
      await registerGraphql(scope, test.kernel, [...test.kernel.operations.values()]);
      scope.addHook('onRequest', async (request) => {
        hookLog.push(`after ${request.url}`);
        if (request.headers['x-test-limit']) throw new ServiceError('resource_exhausted', 'too many requests');
        if (request.headers['x-test-crash']) throw new Error('hook crashed reading /etc/secret');
      });
    },
    { prefix: '/auth' },
  );
  await app.ready();
  return { app, test, hookLog };
}

async function post(
  app: FastifyInstance,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/auth/graphql',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

async function gql(
  app: FastifyInstance,
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const res = await post(app, { query, variables }, headers);
  return { status: res.statusCode, body: res.json() as GqlBody, res };
}

const setCookies = (res: LightMyRequestResponse): string[] => {
  const h = res.headers['set-cookie'];
  return h === undefined ? [] : Array.isArray(h) ? h : [h];
};

t.test('GraphQL under an embedding prefix', async (t) => {
  const { app, test, hookLog } = await mount();
  t.teardown(async () => {
    await app.close();
    await test.close();
  });

  t.test('meta answers with the contract fields', async (t) => {
    const fields = CONTRACT_META_FLAGS.join(' ');
    const { status, body } = await gql(app, `query meta { meta { version client_id ${fields} } }`);
    t.equal(status, 200);
    t.notOk(body.errors);
    const meta = body.data!.meta as Record<string, unknown>;
    t.equal(meta.client_id, 'gql-client');
    t.type(meta.version, 'string');
    for (const f of CONTRACT_META_FLAGS) t.type(meta[f], 'boolean', f);
  });

  t.test(
    'params with variables typed by the input type name round-trip Int64, Map, lists and nested objects',
    async (t) => {
      const query = `query echo($p: EchoRequest!) {
      echo(params: $p) { text count tags data nested { level note } items { key value } }
    }`;
      const params = {
        text: 'hi',
        count: 7,
        tags: ['a', 'b'],
        data: { deep: { list: [1, 'x', null] }, ok: true },
        nested: { level: 3 },
      };
      // Several rounds: Mercurius switches to the graphql-jit compiled query after the first one.
      for (let round = 0; round < 3; round++) {
        const { status, body } = await gql(app, query, { p: params });
        t.equal(status, 200, `round ${round}`);
        t.same(
          body,
          {
            data: {
              echo: {
                text: 'hi',
                count: 7,
                tags: ['a', 'b'],
                data: { deep: { list: [1, 'x', null] }, ok: true },
                nested: { level: 3, note: null },
                items: [
                  { key: 'a', value: 7 },
                  { key: 'b', value: 8 },
                ],
              },
            },
          },
          `round ${round}`,
        );
      }
    },
  );

  t.test('explicit nulls in variables mean "not given"', async (t) => {
    const { body } = await gql(app, 'query ($p: EchoRequest!) { echo(params: $p) { text count tags data } }', {
      p: { text: 'n', count: null, tags: null, data: null, nested: null },
    });
    t.same(body, { data: { echo: { text: 'n', count: null, tags: [], data: null } } });
  });

  t.test('inline literals work like variables', async (t) => {
    const { body } = await gql(
      app,
      '{ echo(params: {text: "lit", count: 2, tags: ["z"], data: {k: [1, 2]}}) { text count data items { key value } } }',
    );
    t.same(body, { data: { echo: { text: 'lit', count: 2, data: { k: [1, 2] }, items: [{ key: 'z', value: 2 }] } } });
  });

  t.test('param and flat arguments', async (t) => {
    const one = await gql(app, 'query ($id: String!) { lookup(param: {id: $id}) { message } }', { id: 'abc' });
    t.same(one.body, { data: { lookup: { message: 'found abc' } } });
    const sum = await gql(app, 'mutation add($a: Int64!, $b: Int64) { add_numbers(a: $a, b: $b) { sum } }', {
      a: 2 ** 40,
      b: 2,
    });
    t.same(sum.body, { data: { add_numbers: { sum: 2 ** 40 + 2 } } });
    const noB = await gql(app, 'mutation { add_numbers(a: 5, b: null) { sum } }');
    t.same(noB.body, { data: { add_numbers: { sum: 5 } } });
  });

  t.test('an output list is a non-null list of objects', async (t) => {
    const { body } = await gql(app, '{ list_items { key value } }');
    t.same(body, {
      data: {
        list_items: [
          { key: 'one', value: 1 },
          { key: 'big', value: 2 ** 40 },
        ],
      },
    });
  });

  t.test('service errors carry their message and UPPER_SNAKE code with HTTP 200', async (t) => {
    const cases: [string, string, string][] = [
      ['missing', 'NOT_FOUND', 'no such thing'],
      ['forbidden', 'PERMISSION_DENIED', 'not yours'],
      // Internal faults keep their detail in the log only.
      ['boom', 'INTERNAL', 'internal server error'],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [id, code, message] of cases) {
        const { status, body } = await gql(app, 'query ($id: String!) { lookup(param: {id: $id}) { message } }', {
          id,
        });
        t.equal(status, 200, `${id} round ${round}`);
        t.equal(body.data, null);
        t.equal(body.errors?.length, 1);
        t.equal(body.errors?.[0].message, message, `${id} round ${round}`);
        t.equal(body.errors?.[0].extensions?.code, code, `${id} round ${round}`);
        t.same(body.errors?.[0].path, ['lookup']);
      }
    }
  });

  t.test('input the schema refuses is INVALID_ARGUMENT naming the field', async (t) => {
    const { status, body } = await gql(app, 'query ($p: EchoRequest!) { echo(params: $p) { text } }', {
      p: { text: 'x'.repeat(65) },
    });
    t.equal(status, 200);
    t.equal(body.errors?.[0].extensions?.code, 'INVALID_ARGUMENT');
    t.match(body.errors?.[0].message, /^invalid text: /);
  });

  t.test('one failing root field does not hide the others', async (t) => {
    const { status, body } = await gql(
      app,
      '{ ok: lookup(param: {id: "a"}) { message } bad: lookup(param: {id: "missing"}) { message } }',
    );
    t.equal(status, 200);
    // Both root fields are non-null, so GraphQL nulls the whole data when one fails.
    t.equal(body.errors?.[0].extensions?.code, 'NOT_FOUND');
    t.same(body.errors?.[0].path, ['bad']);
  });

  t.test(
    'GraphQL-level errors answer 400, on the first use of a query text and on later (compiled) ones',
    async (t) => {
      const bad: [string, unknown][] = [
        ['syntax error', { query: '{ meta { version ' }],
        ['unknown field', { query: '{ meta { no_such_field } }' }],
        ['unknown root field', { query: '{ rest_only { message } }' }],
        ['missing argument', { query: '{ echo { text } }' }],
        ['Int64 literal with a fraction', { query: 'mutation { add_numbers(a: 1.5) { sum } }' }],
        [
          'Int64 variable with a fraction',
          { query: 'mutation ($a: Int64!) { add_numbers(a: $a) { sum } }', variables: { a: 1.5 } },
        ],
        [
          'Int64 variable as a string',
          { query: 'mutation ($a: Int64!) { add_numbers(a: $a) { sum } }', variables: { a: '12' } },
        ],
        [
          'Map variable that is a list',
          {
            query: 'query ($p: EchoRequest!) { echo(params: $p) { text } }',
            variables: { p: { text: 'x', data: [1] } },
          },
        ],
        [
          'variable of the wrong input type',
          { query: 'query ($p: LookupRequest!) { echo(params: $p) { text } }', variables: { p: { id: 'x' } } },
        ],
        ['missing variable', { query: 'query ($p: EchoRequest!) { echo(params: $p) { text } }' }],
        ['no query', {}],
        ['query of the wrong JSON type', { query: 42 }],
        ['variables that are not an object', { query: '{ meta { version } }', variables: 'x' }],
        ['a batch (not enabled)', [{ query: '{ meta { version } }' }]],
      ];
      for (const [what, body] of bad) {
        // Three times: later runs go through Mercurius's caches and its graphql-jit compiled query.
        // The second is the one that compiles it, where graphql-jit worded a bad variable its own
        // way: every round must say the very same thing.
        const messages: string[] = [];
        for (let round = 0; round < 3; round++) {
          const res = await post(app, body);
          t.equal(res.statusCode, 400, `${what}: round ${round + 1}`);
          const json = res.json() as GqlBody;
          t.ok(Array.isArray(json.errors) && json.errors.length > 0, `${what}: has errors`);
          messages.push(JSON.stringify(json.errors?.map((e) => [e.message, e.extensions?.code])));
        }
        t.equal(new Set(messages).size, 1, `${what}: the same errors in every round`);
      }
      const deep = await post(app, { query: `{ meta ${'{ a '.repeat(20_000)}${'}'.repeat(20_001)}` });
      t.equal(deep.statusCode, 400, 'a document nested past the parser: 400');
      t.same(
        (deep.json() as GqlBody).errors?.map((e) => [e.message, e.extensions?.code]),
        [['invalid document: nested too deeply', 'INVALID_ARGUMENT']],
        "said plainly, not the engine's stack overflow",
      );
      const wrongVariable = await post(app, {
        query: 'query ($p: EchoRequest!) { echo(params: $p) { text } }',
        variables: { p: { text: 5 } },
      });
      t.match(
        (wrongVariable.json() as GqlBody).errors?.[0].message,
        /^Variable "\$p" got invalid value 5 at "p\.text"/,
        'the error names the variable of the document',
      );
      const notJson = await app.inject({
        method: 'POST',
        url: '/auth/graphql',
        headers: { 'content-type': 'application/json' },
        payload: '{nope',
      });
      t.equal(notJson.statusCode, 400, 'malformed JSON');
      const viaGet = await app.inject({
        method: 'GET',
        url: '/auth/graphql?query=' + encodeURIComponent('mutation { add_numbers(a: 1) { sum } }'),
      });
      t.ok(viaGet.statusCode >= 400 && viaGet.statusCode < 500, `mutation over GET: ${viaGet.statusCode}`);
    },
  );

  t.test('queries over GET work', async (t) => {
    const res = await app.inject({
      method: 'GET',
      url: '/auth/graphql?query=' + encodeURIComponent('{ meta { client_id } }'),
    });
    t.equal(res.statusCode, 200);
    t.same(res.json(), { data: { meta: { client_id: 'gql-client' } } });
  });

  t.test('any operation name is accepted', async (t) => {
    const res = await post(app, { query: 'query getMeta { meta { client_id } }', operationName: 'somethingElse' });
    t.same(res.json(), { data: { meta: { client_id: 'gql-client' } } });
    const two = await post(app, {
      query: 'query a { meta { client_id } } query b { list_items { key } }',
      operationName: 'b',
    });
    t.same(two.json(), { data: { list_items: [{ key: 'one' }, { key: 'big' }] } });
  });

  t.test('a cookie effect reaches the response and comes back', async (t) => {
    const { res, body } = await gql(
      app,
      'mutation ($data: SetFlavorRequest!) { set_flavor(params: $data) { message } }',
      { data: { flavor: 'vanilla' } },
    );
    t.same(body, { data: { set_flavor: { message: 'flavor vanilla' } } });
    const cookie = setCookies(res).find((c) => c.startsWith('flavor='));
    t.match(cookie, /^flavor=vanilla;/);
    t.match(cookie, /HttpOnly/);
    t.match(cookie, /SameSite=Lax/);
    const back = await gql(app, '{ read_flavor { message } }', undefined, { cookie: 'flavor=vanilla' });
    t.same(back.body, { data: { read_flavor: { message: 'vanilla' } } });
  });

  t.test('admin session: login sets service-admin, the cookie authenticates, logout clears it', async (t) => {
    const denied = await gql(app, '{ _admin_meta { roles } }');
    t.equal(denied.status, 200);
    t.equal(denied.body.errors?.[0].extensions?.code, 'UNAUTHENTICATED');
    t.equal(denied.body.errors?.[0].message, 'unauthorized');

    const wrong = await gql(
      app,
      'mutation login($data: AdminLoginRequest!) { _admin_login(params: $data) { message } }',
      { data: { admin_secret: 'nope' } },
    );
    t.equal(wrong.body.errors?.[0].extensions?.code, 'UNAUTHENTICATED');
    t.same(setCookies(wrong.res), []);

    const login = await gql(
      app,
      'mutation login($data: AdminLoginRequest!) { _admin_login(params: $data) { message } }',
      { data: { admin_secret: ADMIN_SECRET } },
    );
    t.same(login.body, { data: { _admin_login: { message: 'admin logged in successfully' } } });
    const cookie = setCookies(login.res).find((c) => c.startsWith('service-admin='));
    t.ok(cookie, 'service-admin cookie set');
    t.match(cookie, /HttpOnly/);
    const pair = cookie!.split(';')[0];

    const meta = await gql(
      app,
      '{ _admin_meta { roles default_roles protected_roles is_multi_factor_auth_service_enabled } }',
      undefined,
      { cookie: pair },
    );
    t.notOk(meta.body.errors);
    t.type(
      (meta.body.data!._admin_meta as { is_multi_factor_auth_service_enabled: unknown })
        .is_multi_factor_auth_service_enabled,
      'boolean',
    );

    const header = await gql(app, '{ _admin_meta { roles } }', undefined, { 'x-service-admin-secret': ADMIN_SECRET });
    t.notOk(header.body.errors, 'the admin header works too');

    const logout = await gql(app, 'mutation { _admin_logout { message } }', undefined, { cookie: pair });
    t.same(logout.body, { data: { _admin_logout: { message: 'admin logged out successfully' } } });
    t.match(
      setCookies(logout.res).find((c) => c.startsWith('service-admin=')),
      /Max-Age=0|Expires=Thu, 01 Jan 1970/,
    );

    const after = await gql(app, '{ _admin_meta { roles } }', undefined, { cookie: pair });
    t.equal(after.body.errors?.[0].extensions?.code, 'UNAUTHENTICATED');
  });

  t.test('deprecated mutations stay in the schema and fail with the SPEC text', async (t) => {
    const { status, body } = await gql(app, 'mutation { _update_env(params: {payload: {a: 1}}) { message } }');
    t.equal(status, 200);
    t.equal(body.errors?.[0].extensions?.code, 'FAILED_PRECONDITION');
    t.equal(body.errors?.[0].message, 'deprecated. please configure env via cli args');
    const bare = await gql(app, 'mutation { _admin_signup { message } }');
    t.equal(bare.body.errors?.[0].message, 'deprecated. please configure admin secret via cli args');
  });

  t.test('introspection is on by default and shows the contract input names', async (t) => {
    const { status, body } = await gql(
      app,
      '{ __type(name: "EchoRequest") { kind inputFields { name type { kind name ofType { name } } } } }',
    );
    t.equal(status, 200);
    const type = body.data!.__type as {
      kind: string;
      inputFields: { name: string; type: { kind: string; name: string | null; ofType: { name: string } | null } }[];
    };
    t.equal(type.kind, 'INPUT_OBJECT');
    t.same(
      type.inputFields.map((f) => f.name),
      ['text', 'count', 'tags', 'data', 'nested'],
    );
    t.same(type.inputFields[0].type, { kind: 'NON_NULL', name: null, ofType: { name: 'String' } });
    t.same(type.inputFields[1].type, { kind: 'SCALAR', name: 'Int64', ofType: null });
  });

  t.test('the context hooks run for /graphql whether added before or after registration', async (t) => {
    hookLog.length = 0;
    await gql(app, '{ meta { version } }');
    t.same(hookLog, ['before /auth/graphql', 'after /auth/graphql']);
    const limited = await gql(app, '{ meta { version } }', undefined, { 'x-test-limit': '1' });
    t.equal(limited.status, 429, 'a hook error keeps its status');
    t.equal(limited.body.errors?.[0].extensions?.code, 'RESOURCE_EXHAUSTED');
    t.equal(limited.body.errors?.[0].message, 'too many requests');
    const crashed = await gql(app, '{ meta { version } }', undefined, { 'x-test-crash': '1' });
    t.equal(crashed.status, 500, 'a real fault is a 500');
    t.same(
      crashed.body.errors?.map((e) => [e.message, e.extensions?.code]),
      [['internal server error', 'INTERNAL']],
      'without its detail',
    );
  });

  t.test('a query that is not a string is a 400, not a fault', async (t) => {
    for (const query of [42, { kind: 'Document' }, ['{ meta { version } }']]) {
      const res = await post(app, { query });
      t.equal(res.statusCode, 400, JSON.stringify(query));
      const body = res.json() as GqlBody;
      t.match(body.errors?.[0]?.message ?? '', /query must be a string/);
    }
    const ok = await post(app, { query: '{ meta { version } }', operationName: 'SomeClientLabel' });
    t.equal(ok.statusCode, 200, 'a stray operationName on a one-operation document is dropped');
  });

  t.test('the playground is off by default', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/auth/graphiql' });
    t.equal(res.statusCode, 404);
  });
});

t.test('introspection off, playground on', async (t) => {
  const { app, test } = await mount({ 'enable-graphql-introspection': false, 'enable-playground': true });
  t.teardown(async () => {
    await app.close();
    await test.close();
  });
  for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Meta") { name } }']) {
    const { status, body } = await gql(app, query);
    t.equal(status, 400, query);
    t.match(body.errors?.[0].message, /introspection has been disabled/, query);
  }
  const { status, body } = await gql(app, '{ meta { client_id } __typename }');
  t.equal(status, 200, 'ordinary queries still work');
  t.same(body, { data: { meta: { client_id: 'gql-client' }, __typename: 'Query' } });
  const ide = await app.inject({ method: 'GET', url: '/auth/graphiql' });
  t.equal(ide.statusCode, 200);
  t.match(ide.headers['content-type'], /text\/html/);
});
