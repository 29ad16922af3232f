/**
 * Parity: the same operations over REST, GraphQL and gRPC give the same results
 * and the same error codes. Calls are built generically from the operation table.
 */
import type { TSchema } from '@sinclair/typebox';
import t from 'tap';
import { ServiceError, type ErrorCode } from '../../core/errors.js';
import type { CompiledOperation } from '../../core/operations.js';
import { defineOperation } from '../../core/operations.js';
import { definePlugin } from '../../core/plugin.js';
import { InputObject, Int64, JsonMap, OptInt64, OptStr, OutputObject, Str, StrList, Type } from '../../core/schema.js';
import { basePlugins } from '../../plugins/default.js';
import { grpcClient, type GrpcCallError } from '../helpers/grpc-client.js';
import { startTestServer, TEST_ADMIN_SECRET, type TestServer } from '../helpers/server.js';

const Item = OutputObject('ParityItem', { name: Type.String(), size: Int64(), tags: Type.Array(Type.String()) });
const fixture = definePlugin({
  name: 'parity-fixture',
  description: 'Operations with every shape the projections handle.',
  operations: [
    defineOperation({
      name: 'parity_echo',
      kind: 'mutation',
      access: 'public',
      description: 'Echoes nested shapes.',
      input: InputObject('ParityEchoRequest', {
        name: Str({ max: 32 }),
        count: OptInt64({ min: 0, max: 10 }),
        tags: StrList({ maxItems: 5 }),
        note: OptStr(),
      }),
      output: OutputObject('ParityEchoResponse', {
        items: Type.Array(Item),
        total: Int64(),
        data: Type.Optional(JsonMap()),
        note: Type.Optional(Type.String()),
      }),
      handler: async (_ctx, input) => {
        const n = input.count ?? 1;
        return {
          items: Array.from({ length: n }, (_, i) => ({
            name: `${input.name}-${i}`,
            size: i * 1_000_000_007,
            tags: input.tags,
          })),
          total: n,
          data: { nested: { ok: true, list: [1, 'two'] } },
        };
      },
    }),
    defineOperation({
      name: 'parity_missing',
      kind: 'query',
      access: 'public',
      description: 'Always not_found.',
      input: InputObject('ParityMissingRequest', { id: Str({ max: 64 }) }),
      output: OutputObject('ParityMissingResponse', { id: Type.String() }),
      handler: async (_ctx, input) => {
        throw new ServiceError('not_found', `no thing ${input.id}`);
      },
    }),
  ],
});

type Outcome = { ok: true; value: unknown } | { ok: false; code: ErrorCode; message: string };

function selection(schema: TSchema): string {
  const s = schema as { type?: string; properties?: Record<string, TSchema>; items?: TSchema; 'x-scalar'?: string };
  if (s['x-scalar'] === 'Map') return '';
  if (s.type === 'array' && s.items) return selection(s.items);
  if (s.type === 'object' && s.properties)
    return `{ ${Object.entries(s.properties)
      .map(([k, v]) => `${k} ${selection(v)}`)
      .join(' ')} }`;
  return '';
}

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = normalize(v);
    return out;
  }
  return value;
}

let server: TestServer;
let ops: Map<string, CompiledOperation>;
let grpc: ReturnType<typeof grpcClient>;

t.before(async () => {
  server = await startTestServer({ plugins: [...basePlugins, fixture] });
  ops = server.kernel.operations;
  grpc = grpcClient(server.grpcAddress, [...ops.values()]);
});
t.teardown(async () => {
  grpc.close();
  await server.close();
});

async function viaRest(name: string, input: object | undefined, headers: Record<string, string>): Promise<Outcome> {
  const op = ops.get(name)!;
  const res = await fetch(`${server.url}${op.restPath}`, {
    method: op.restMethod,
    headers: {
      origin: server.url,
      ...(op.restMethod === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(op.restMethod === 'POST' ? { body: JSON.stringify(input ?? {}) } : {}),
  });
  const body = (await res.json()) as Record<string, unknown>;
  return res.ok
    ? { ok: true, value: normalize(body) }
    : { ok: false, code: body.code as ErrorCode, message: body.message as string };
}

async function viaGraphql(name: string, input: object | undefined, headers: Record<string, string>): Promise<Outcome> {
  const op = ops.get(name)!;
  const inputId = (op.def.input as { $id?: string } | undefined)?.$id;
  const kind = op.def.kind === 'query' ? 'query' : 'mutation';
  const query = inputId
    ? `${kind}($params: ${inputId}!) { ${name}(params: $params) ${selection(op.def.output)} }`
    : `${kind} { ${name} ${selection(op.def.output)} }`;
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { origin: server.url, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables: inputId ? { params: input ?? {} } : {} }),
  });
  const body = (await res.json()) as {
    data?: Record<string, unknown>;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  if (body.errors?.length) {
    const e = body.errors[0];
    return { ok: false, code: (e.extensions?.code ?? 'INTERNAL').toLowerCase() as ErrorCode, message: e.message };
  }
  return { ok: true, value: normalize(body.data?.[name]) };
}

async function viaGrpc(name: string, input: object | undefined, headers: Record<string, string>): Promise<Outcome> {
  try {
    const r = await grpc.call(name, input, headers);
    return { ok: true, value: normalize(r.response) };
  } catch (err) {
    const e = err as GrpcCallError;
    return { ok: false, code: e.code, message: e.message.replace(/^\d+ [A-Z_]+: /, '') };
  }
}

// Protobuf cannot carry an unknown field (the encoder drops it), so that scenario is for the two
// JSON transports; GraphQL refuses it while coercing variables, with the same code.
const scenarios: {
  title: string;
  op: string;
  input?: object;
  headers?: Record<string, string>;
  expect: 'ok' | ErrorCode;
  jsonOnly?: boolean;
}[] = [
  { title: 'meta', op: 'meta', expect: 'ok' },
  {
    title: 'admin meta with the secret header',
    op: '_admin_meta',
    headers: { 'x-service-admin-secret': TEST_ADMIN_SECRET },
    expect: 'ok',
  },
  { title: 'admin meta without credentials', op: '_admin_meta', expect: 'unauthenticated' },
  {
    title: 'admin login with a wrong secret',
    op: '_admin_login',
    input: { admin_secret: 'wrong' },
    expect: 'unauthenticated',
  },
  {
    title: 'admin login with an unknown field',
    op: '_admin_login',
    input: { admin_secret: 'x', extra: true },
    expect: 'invalid_argument',
    jsonOnly: true,
  },
  {
    title: 'nested shapes, Int64 and Map',
    op: 'parity_echo',
    input: { name: 'a', count: 3, tags: ['x', 'y'] },
    expect: 'ok',
  },
  {
    title: 'a bound violated',
    op: 'parity_echo',
    input: { name: 'a', count: 11, tags: [] },
    expect: 'invalid_argument',
  },
  {
    title: 'an oversized string',
    op: 'parity_echo',
    input: { name: 'a'.repeat(33), tags: [] },
    expect: 'invalid_argument',
  },
  { title: 'not found', op: 'parity_missing', input: { id: 'x1' }, expect: 'not_found' },
];

for (const s of scenarios) {
  t.test(`parity: ${s.title}`, async (t) => {
    const headers = s.headers ?? {};
    const [rest, gql, rpc] = [
      await viaRest(s.op, s.input, headers),
      await viaGraphql(s.op, s.input, headers),
      await viaGrpc(s.op, s.input, headers),
    ];
    if (s.expect === 'ok') {
      t.ok(rest.ok, 'REST succeeds');
      t.same(gql, rest, 'GraphQL equals REST');
      t.same(rpc, rest, 'gRPC equals REST');
    } else {
      t.match(rest, { ok: false, code: s.expect }, 'REST code');
      t.match(gql, { ok: false, code: s.expect }, 'GraphQL code');
      if (!s.jsonOnly) t.match(rpc, { ok: false, code: s.expect }, 'gRPC code');
      if (s.expect !== 'invalid_argument') {
        t.equal((gql as { message: string }).message, (rest as { message: string }).message, 'same message');
        t.equal((rpc as { message: string }).message, (rest as { message: string }).message, 'same message');
      }
    }
  });
}

t.test('GraphQL document errors carry INVALID_ARGUMENT like REST bad input', async (t) => {
  for (const query of ['{ nope }', '{ meta { ', 'mutation { _admin_login(params: { admin_secret: 1 }) { message } }']) {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { origin: server.url, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    t.equal(res.status, 400, query);
    const body = (await res.json()) as { errors: { extensions?: { code?: string } }[] };
    t.equal(body.errors[0].extensions?.code, 'INVALID_ARGUMENT', query);
  }
});
