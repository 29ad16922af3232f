/**
 * Every operation of the default distribution, over REST and GraphQL, fed input that is wrong
 * in every way a schema can tell (brief, rule 3): a body that
 * is not JSON, not an object, or carries `__proto__`; each field in turn set to a value of
 * another type, null, an oversized or unpaired-surrogate string, a nested or oversized array.
 * Each answer is checked to be below 500 and, when it is an error, in the spec's envelope
 * (REST: `code` and `message`; GraphQL: an error with a `code` extension other than an internal
 * one), and every refused call that may write is checked to have left the database as it found it.
 *
 * The cases are generated from the operation table, so an operation added later is swept too,
 * as the calls of parity.test.ts are. Requests go once without credentials and once with the
 * admin secret, so that admin operations reach their input checks. It runs on SQLite, PostgreSQL
 * and MariaDB, a test file per surface and database (rest-*.test.ts and graphql-*.test.ts
 * beside this: each boots its own server, and tap runs them side by side); on the last two,
 * GraphQL only carries what REST does not, and a field of a REST body is tried only with the
 * wrong values of its own JSON type (on-database.ts).
 */
import { buildSchema, getNamedType, isLeafType, type GraphQLField, type GraphQLSchema } from 'graphql';
import type { Test } from 'tap';
import type { CompiledOperation } from '../../../core/operations.js';
import { buildSdl } from '../../../transports/graphql/sdl.js';
import type { WriteWatch } from '../../helpers/database-text.js';
import type { DbName } from '../../helpers/databases.js';
import { TEST_ADMIN_SECRET, type TestServer } from '../../helpers/server.js';
import { onDatabase } from './on-database.js';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  $id?: string;
}

/** A value of the schema's shape (not always a valid one: a string field gets "x"). */
function sample(s: Schema): unknown {
  if (s.anyOf) return sample(s.anyOf[0]);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case 'string':
      return 'x';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return s.items ? [sample(s.items)] : [];
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sample(v)]));
    default:
      return 'x';
  }
}

/** Values tried in place of each field (and of each item of a list, each field of an object). */
const WRONG: readonly unknown[] = [
  null,
  -1,
  1e308,
  2 ** 63,
  true,
  'x',
  '',
  'a'.repeat(70_000),
  '\u0000',
  '\ud800',
  [],
  [1, 'a', null],
  {},
  { a: { b: { c: 1 } } },
];
const LONG_LIST = Array.from({ length: 2_000 }, () => 'x');

/** Whole bodies that are not an object of the operation's input. */
const BAD_BODIES: readonly [string, string][] = [
  ['malformed JSON', '{"email": "x@example.com", '],
  ['an array', '[]'],
  ['a string', '"s"'],
  ['null', 'null'],
  ['a prototype key', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}'],
];

function fieldVariants(field: Schema): unknown[] {
  const out = [...WRONG];
  if (field.type === 'array') {
    out.push(LONG_LIST);
    if (field.items) for (const w of WRONG) out.push([w]);
  }
  if (field.type === 'object' && field.properties) {
    const base = sample(field) as Record<string, unknown>;
    for (const inner of Object.keys(field.properties)) for (const w of WRONG) out.push({ ...base, [inner]: w });
  }
  return out;
}

/**
 * Whether `value` is of the JSON type `s` asks for, down through list items and object fields
 * (null counts: the input check reads a null field as an absent one). A value of another type is
 * refused by the input check, which runs before the operation touches the database and is the
 * same on every database; only a value of the right type can reach a statement.
 */
function ofSchemaType(s: Schema, value: unknown): boolean {
  if (value === null || s.anyOf || s.type === undefined) return true;
  switch (s.type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value) && value.every((v) => !s.items || ofSchemaType(s.items, v));
    case 'object':
      return (
        typeof value === 'object' &&
        !Array.isArray(value) &&
        Object.entries(value).every(([k, v]) => !s.properties?.[k] || ofSchemaType(s.properties[k], v))
      );
    default:
      return true;
  }
}

/** The server of the database being swept (one at a time, see the end of this file). */
let server: TestServer;
let ops: CompiledOperation[] = [];
let schema: GraphQLSchema;
let watch: WriteWatch;

/** The operation's GraphQL root field, if it has one. */
function rootField(op: CompiledOperation): GraphQLField<unknown, unknown> | undefined {
  if (op.def.graphql === false) return undefined;
  const root = op.def.kind === 'query' ? schema.getQueryType() : schema.getMutationType();
  return root?.getFields()[op.def.name];
}
const CALLERS: readonly [string, Record<string, string>][] = [
  ['no credentials', {}],
  ['the admin secret', { 'x-service-admin-secret': TEST_ADMIN_SECRET }],
];

interface Outcome {
  status: number;
  problem?: string;
}

async function viaRest(op: CompiledOperation, body: string, headers: Record<string, string>): Promise<Outcome> {
  let path = op.restPath ?? '';
  const init: RequestInit = { method: op.restMethod, headers: { origin: server.url, ...headers } };
  if (op.restMethod === 'POST') {
    init.headers = { ...init.headers, 'content-type': 'application/json' };
    init.body = body;
  } else {
    // A GET takes its input from the query string: the same values, each as its JSON text
    // unless it is a string.
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = { q: body };
    }
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const pairs = Object.entries(parsed).map(([k, v]): [string, string] => [
        k,
        typeof v === 'string' ? v : JSON.stringify(v),
      ]);
      path += `?${new URLSearchParams(pairs).toString()}`;
    }
  }
  const res = await fetch(`${server.url}${path}`, init);
  const text = await res.text();
  if (res.status >= 500) return { status: res.status, problem: text.slice(0, 200) };
  if (res.status < 400) return { status: res.status };
  try {
    const env = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof env.code === 'string' && typeof env.message === 'string' && env.message !== '')
      return { status: res.status };
  } catch {
    // not JSON: reported below
  }
  return { status: res.status, problem: `not the error envelope: ${text.slice(0, 200)}` };
}

/**
 * The input as GraphQL variables: one `$params`-like variable of the field's input type, or for
 * flat arguments one variable per field.
 */
async function viaGraphql(
  op: CompiledOperation,
  field: GraphQLField<unknown, unknown>,
  value: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<Outcome> {
  const flat = op.def.graphql !== false && op.def.graphql?.arg === 'flat';
  const args = field.args.filter((a) => !flat || a.name in value);
  const declared = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const passed = args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const variables = flat ? value : Object.fromEntries(args.map((a) => [a.name, value]));
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
  const kind = op.def.kind === 'query' ? 'query' : 'mutation';
  const query = `${kind}${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`;
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { origin: server.url, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  if (res.status >= 500) return { status: res.status, problem: text.slice(0, 200) };
  try {
    const body = JSON.parse(text) as { errors?: { message?: unknown; extensions?: { code?: unknown } }[] };
    const errors = body.errors ?? [];
    // A document that does not validate would mean this test built it wrongly: the sweep would
    // then exercise nothing. Variables of the wrong shape are refused as BAD_USER_INPUT or
    // INVALID_ARGUMENT instead.
    const wrong = errors.find(
      (e) =>
        typeof e.extensions?.code !== 'string' ||
        /^(INTERNAL|GRAPHQL_VALIDATION|GRAPHQL_PARSE)/.test(e.extensions.code) ||
        typeof e.message !== 'string',
    );
    return wrong
      ? { status: res.status, problem: JSON.stringify(wrong).slice(0, 300) }
      : { status: errors.length ? 400 : 200 };
  } catch {
    return { status: res.status, problem: `not JSON: ${text.slice(0, 200)}` };
  }
}

/** Runs one call; a refused call that may write (a mutation, or a query that changes state) must not have changed the database. */
async function check(
  t: Test,
  op: CompiledOperation,
  label: string,
  call: () => Promise<Outcome>,
  counts: Record<string, number>,
) {
  const writes = op.def.kind === 'mutation' || op.def.changesState === true;
  const { outcome, changed } = await watch.run(writes, call, (o) => o.status >= 400);
  counts[outcome.status < 400 ? 'accepted' : 'refused']++;
  if (outcome.problem !== undefined) t.fail(`${label}: ${outcome.status} ${outcome.problem}`);
  else if (changed) t.fail(`${label}: refused (${outcome.status}) but the database changed`);
}

/**
 * The surface a test file sweeps: 'rest' every operation REST carries; 'graphql' every operation
 * over GraphQL; 'graphql-where-no-rest' only those REST does not carry (on PostgreSQL and
 * MariaDB: on-database.ts says why that is enough).
 */
export type Surface = 'rest' | 'graphql' | 'graphql-where-no-rest';

/**
 * How many refusals a surface's sweep makes at least; fewer would mean the calls stopped
 * reaching the operations' checks and the sweep passed vacuously (a full sweep refuses over
 * 3,000 calls a surface, the operations without REST a few hundred).
 */
const LEAST_REFUSED: Record<Surface, number> = { rest: 2_500, graphql: 2_500, 'graphql-where-no-rest': 100 };

/**
 * `typedOnly`: each field of a REST body (JSON handed to the input check as sent) only with the
 * wrong values of its own JSON type; whole bodies, unknown fields, query strings (read per the
 * field's type) and GraphQL variables (an ID takes an integer as a string) still get them all.
 * on-database.ts says where that is enough.
 */
async function sweep(t: Test, surface: Surface, typedOnly: boolean) {
  const rest = surface === 'rest';
  const counts = { accepted: 0, refused: 0 };
  let failuresBefore = 0;
  for (const op of ops) {
    const { name } = op.def;
    const input = op.def.input as Schema | undefined;
    const viaGraphqlToo = surface === 'graphql' || (surface === 'graphql-where-no-rest' && op.restPath === null);
    if (!(rest && op.restPath !== null) && !viaGraphqlToo) continue;
    for (const [who, headers] of CALLERS) {
      if (rest && op.restPath !== null) {
        for (const [what, body] of BAD_BODIES)
          await check(t, op, `REST ${name} (${who}), ${what}`, () => viaRest(op, body, headers), counts);
      }
      if (!input?.properties) continue;
      const base = sample(input) as Record<string, unknown>;
      const cases: [string, Record<string, unknown>][] = [['an unknown field', { ...base, zz_unknown: 1 }]];
      const typed = typedOnly && rest && op.restPath !== null && op.restMethod === 'POST' && !viaGraphqlToo;
      for (const [field, schema] of Object.entries(input.properties)) {
        for (const v of fieldVariants(schema)) {
          if (typed && !ofSchemaType(schema, v)) continue;
          cases.push([`${field} = ${JSON.stringify(v).slice(0, 40)}`, { ...base, [field]: v }]);
        }
      }
      const field = viaGraphqlToo ? rootField(op) : undefined;
      for (const [what, value] of cases) {
        if (rest && op.restPath !== null)
          await check(
            t,
            op,
            `REST ${name} (${who}), ${what}`,
            () => viaRest(op, JSON.stringify(value), headers),
            counts,
          );
        if (field)
          await check(t, op, `GraphQL ${name} (${who}), ${what}`, () => viaGraphql(op, field, value, headers), counts);
      }
    }
    // One line per operation rather than one per call: thousands of passing asserts would hide the failures.
    t.equal(t.counts.fail - failuresBefore, 0, `${name}: every bad input answered in the envelope, nothing written`);
    failuresBefore = t.counts.fail;
  }
  // The sweep would pass vacuously if nothing reached the operations' checks.
  t.ok(
    counts.refused > LEAST_REFUSED[surface],
    `most calls refused (${counts.refused} refused, ${counts.accepted} accepted)`,
  );
}

/** The sweep of one surface on one database (one test file each: on-database.ts says why). */
export function sweepSurface(db: DbName, surface: Surface): Promise<void> {
  return onDatabase(
    db,
    `every operation refuses bad input over ${surface} with a 4xx in the envelope and writes nothing`,
    async (t, started, watching) => {
      server = started;
      watch = watching;
      ops = [...server.kernel.operations.values()];
      schema = buildSchema(buildSdl(ops));
      await sweep(t, surface, db !== 'sqlite');
    },
  );
}
