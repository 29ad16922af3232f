/**
 * What one GraphQL document may ask (transports/graphql/query-limits.ts), black-box against the
 * real server: alias and fragment bombs, too many root fields or mutations, deep nesting and
 * repeated introspection are refused with a 400 before anything runs; a tool's full introspection
 * query and ordinary operations still pass. Also: an absurdly long operationName is a 400, not a
 * 500.
 */
import { getIntrospectionQuery } from 'graphql';
import t from 'tap';
import { MAX_DEPTH, MAX_FIELDS, MAX_ROOT_FIELDS } from '../../../transports/graphql/query-limits.js';
import { startTestServer } from '../../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());

interface Answer {
  status: number;
  ms: number;
  body: { data?: Record<string, unknown> | null; errors?: { message: string }[] };
}

async function gql(body: Record<string, unknown>): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'], ms: performance.now() - started };
}

const aliases = (n: number, field: string) => Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ');

t.test('a tool full introspection query and ordinary operations pass', async (t) => {
  const intro = await gql({ query: getIntrospectionQuery() });
  t.equal(intro.status, 200);
  t.ok((intro.body.data?.__schema as { types: unknown[] } | undefined)?.types.length, 'the schema came back');
  const metas = await gql({ query: `{ ${aliases(MAX_ROOT_FIELDS, 'meta { version client_id }')} }` });
  t.equal(metas.status, 200, `${MAX_ROOT_FIELDS} root fields`);
  t.equal(Object.keys(metas.body.data ?? {}).length, MAX_ROOT_FIELDS);
});

t.test('five thousand aliases of __schema: refused at once, not run', async (t) => {
  const r = await gql({ query: `{ ${aliases(5000, '__schema { types { name fields { name } } }')} }` });
  t.equal(r.status, 400);
  t.match(r.body.errors?.[0]?.message, /^query too complex/);
  t.ok(r.ms < 3000, `answered in ${Math.round(r.ms)} ms`);
  const two = await gql({ query: `{ ${aliases(3, '__schema { queryType { name } }')} }` });
  t.equal(two.status, 400, 'three introspection fields');
});

t.test('a mutation runs one field: aliased signups create nobody', async (t) => {
  const signup = (i: number) =>
    `s${i}: signup(params: { email: "alias${i}@example.com", password: "Alias-pass-1", confirm_password: "Alias-pass-1" }) { message }`;
  const r = await gql({ query: `mutation { ${[0, 1].map(signup).join(' ')} }` });
  t.equal(r.status, 400);
  t.match(r.body.errors?.[0]?.message, /2 fields at the root of a mutation \(at most 1\)/);
  for (const i of [0, 1])
    t.equal(
      await server.kernel.service('users').findByEmail(`alias${i}@example.com`),
      null,
      `alias${i} was not created`,
    );
  const one = await gql({ query: `mutation { ${signup(7)} }` });
  t.equal(one.status, 200, 'one signup per mutation still works');
});

t.test('too many root fields, fields, or levels', async (t) => {
  t.equal(
    (await gql({ query: `{ ${aliases(MAX_ROOT_FIELDS + 1, 'meta { version }')} }` })).status,
    400,
    'one root field too many',
  );
  // Fragments spread twice per level: 2^20 selections from a document of a few hundred bytes.
  const levels = 20;
  const frags = Array.from(
    { length: levels },
    (_, i) => `fragment F${i} on Meta { ${i === levels - 1 ? 'version' : `a: version ...F${i + 1} ...F${i + 1}`} }`,
  ).join('\n');
  const bomb = await gql({ query: `{ meta { ...F0 } }\n${frags}` });
  t.equal(bomb.status, 400, 'fragment bomb');
  t.match(bomb.body.errors?.[0]?.message, new RegExp(`more than ${MAX_FIELDS} fields`));
  let deep = 'name';
  for (let i = 0; i < MAX_DEPTH; i++) deep = `ofType { ${deep} }`;
  const tooDeep = await gql({ query: `{ __type(name: "Meta") { fields { type { ${deep} } } } }` });
  t.equal(tooDeep.status, 400, 'too deep');
  t.match(tooDeep.body.errors?.[0]?.message, /levels of nesting/);
});

t.test('an operationName longer than any real one is a 400, not a 500', async (t) => {
  for (const n of [300, 60_000]) {
    const r = await gql({ query: '{ meta { version } }', operationName: 'x'.repeat(n) });
    t.equal(r.status, 200, `${n} letters, one operation: the name is a label`);
    const two = await gql({
      query: 'query A { meta { version } } query B { meta { version } }',
      operationName: 'x'.repeat(n),
    });
    t.equal(two.status, 400, `${n} letters, two operations: no such operation`);
  }
});
