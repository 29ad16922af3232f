/** buildSdl on crafted operation tables: names, nullability, scalars, arguments, and loud failures. */
import { buildSchema, isInputObjectType, isObjectType, type GraphQLSchema } from 'graphql';
import t from 'tap';
import { compileOperation, type AnyOperation, type CompiledOperation } from '../../../core/operations.js';
import {
  InputObject,
  Int64,
  JsonMap,
  MessageResponse,
  OptBool,
  OptInt64,
  OptStr,
  OptStrList,
  OutputObject,
  Str,
  Type,
} from '../../../core/schema.js';
import { buildSdl } from '../../../transports/graphql/sdl.js';

const handler = async (): Promise<never> => {
  throw new Error('not called');
};

function op(def: Partial<AnyOperation> & Pick<AnyOperation, 'name'>): CompiledOperation {
  return compileOperation(
    { kind: 'query', access: 'public', description: `${def.name} op`, output: MessageResponse, handler, ...def },
    'test',
  );
}

const ping = op({ name: 'ping' });

/** The printed type of a root field or object field, e.g. `[String!]!`. */
function fieldType(schema: GraphQLSchema, typeName: string, field: string): string {
  const type = schema.getType(typeName);
  if (isObjectType(type) || isInputObjectType(type)) {
    const f = type.getFields()[field];
    if (f) return String(f.type);
  }
  throw new Error(`${typeName}.${field} not found`);
}

function argTypes(schema: GraphQLSchema, root: 'Query' | 'Mutation', field: string): Record<string, string> {
  const type = root === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const f = type?.getFields()[field];
  if (!f) throw new Error(`${root}.${field} not found`);
  return Object.fromEntries(f.args.map((a) => [a.name, String(a.type)]));
}

t.test('root fields follow kind and name, sorted, with descriptions; graphql:false is left out', async (t) => {
  const sdl = buildSdl([
    op({ name: 'zeta' }),
    op({ name: 'alpha', kind: 'mutation' }),
    ping,
    op({ name: 'hidden', graphql: false }),
  ]);
  const schema = buildSchema(sdl);
  t.same(Object.keys(schema.getQueryType()!.getFields()), ['ping', 'zeta']);
  t.same(Object.keys(schema.getMutationType()!.getFields()), ['alpha']);
  t.equal(schema.getQueryType()!.getFields().ping.description, 'ping op');
  t.notMatch(sdl, /hidden/);
  t.equal(fieldType(schema, 'Query', 'ping'), 'Response!');
  for (const scalar of ['Int64', 'Map', 'Any']) t.ok(schema.getType(scalar), `scalar ${scalar} declared`);
});

t.test('no mutation type when there are no mutations', async (t) => {
  const schema = buildSchema(buildSdl([ping]));
  t.equal(schema.getMutationType(), undefined);
});

t.test('the same table gives the same text, whatever the order of operations', async (t) => {
  const ops = [ping, op({ name: 'b', kind: 'mutation', input: InputObject('BReq', { x: Str() }) }), op({ name: 'a' })];
  t.equal(buildSdl(ops), buildSdl([...ops].reverse()));
});

t.test('params: the default argument, non-null when the input has a required property', async (t) => {
  const schema = buildSchema(
    buildSdl([
      ping,
      op({ name: 'req', kind: 'mutation', input: InputObject('ReqRequest', { a: Str(), b: OptStr() }) }),
      op({ name: 'opt', input: InputObject('OptRequest', { a: OptStr() }) }),
      op({
        name: 'forced_optional',
        kind: 'mutation',
        input: InputObject('ForcedOptional', { a: Str() }),
        graphql: { required: false },
      }),
      op({
        name: 'forced_required',
        input: InputObject('ForcedRequired', { a: OptStr() }),
        graphql: { required: true },
      }),
      op({
        name: 'param_arg',
        kind: 'mutation',
        input: InputObject('ParamRequest', { user_id: Str() }),
        graphql: { arg: 'param' },
      }),
    ]),
  );
  t.same(argTypes(schema, 'Mutation', 'req'), { params: 'ReqRequest!' });
  t.same(argTypes(schema, 'Query', 'opt'), { params: 'OptRequest' });
  t.same(argTypes(schema, 'Mutation', 'forced_optional'), { params: 'ForcedOptional' });
  t.same(argTypes(schema, 'Query', 'forced_required'), { params: 'ForcedRequired!' });
  t.same(argTypes(schema, 'Mutation', 'param_arg'), { param: 'ParamRequest!' });
  t.same(argTypes(schema, 'Query', 'ping'), {}, 'no input, no argument');
  t.ok(isInputObjectType(schema.getType('ReqRequest')));
  t.equal(fieldType(schema, 'ReqRequest', 'a'), 'String!');
  t.equal(fieldType(schema, 'ReqRequest', 'b'), 'String');
});

t.test('flat: each input property is a plain argument', async (t) => {
  const schema = buildSchema(
    buildSdl([
      ping,
      op({
        name: 'webauthn_registration_options',
        kind: 'mutation',
        input: InputObject('WebauthnRegistrationOptionsInput', {
          email: OptStr(),
          phone_number: OptStr(),
          id: Str(),
          ids: OptStrList(),
          nested: Type.Optional(Type.Object({ deep: Int64() })),
        }),
        graphql: { arg: 'flat' },
      }),
    ]),
  );
  t.same(argTypes(schema, 'Mutation', 'webauthn_registration_options'), {
    email: 'String',
    phone_number: 'String',
    id: 'String!',
    ids: '[String!]',
    nested: 'WebauthnRegistrationOptionsNested',
  });
  t.ok(isInputObjectType(schema.getType('WebauthnRegistrationOptionsNested')));
  t.equal(schema.getType('WebauthnRegistrationOptionsInput'), undefined, 'the flat input object itself is not a type');
});

t.test('scalars, lists, nullability and nested objects', async (t) => {
  const Item = OutputObject('Item', { id: Str() });
  const Everything = OutputObject('Everything', {
    s: Str(),
    os: OptStr(),
    b: Type.Boolean(),
    ob: OptBool(),
    i: Int64(),
    oi: OptInt64(),
    bare_integer: Type.Integer(),
    float: Type.Number(),
    tagged_map: JsonMap(),
    record: Type.Record(Type.String(), Type.String()),
    unknown: Type.Unknown(),
    odd_tag: Type.String({ 'x-scalar': 'Timestamp' }),
    id: Type.String({ 'x-scalar': 'ID' }),
    status: Type.Union([Type.Literal('current'), Type.Literal('retired')]),
    enum_string: Type.String({ enum: ['a', 'b'] }),
    maybe: Type.Union([Type.String(), Type.Null()]),
    mixed: Type.Union([Type.String(), Type.Integer()]),
    list: Type.Array(Type.String()),
    opt_list: Type.Optional(Type.Array(Item)),
    nested: Type.Object({ inner: Type.Object({ leaf: Type.Boolean() }), when: OptInt64() }),
    nested_list: Type.Array(Type.Object({ k: Str() })),
  });
  const sdl = buildSdl([
    op({ name: 'everything', output: Everything }),
    op({ name: 'items', output: Type.Array(Item) }),
  ]);
  const schema = buildSchema(sdl);
  const expected: Record<string, string> = {
    s: 'String!',
    os: 'String',
    b: 'Boolean!',
    ob: 'Boolean',
    i: 'Int64!',
    oi: 'Int64',
    bare_integer: 'Int64!',
    float: 'Float!',
    tagged_map: 'Map!',
    record: 'Map!',
    unknown: 'Any!',
    odd_tag: 'Any!',
    id: 'ID!',
    status: 'String!',
    enum_string: 'String!',
    maybe: 'String',
    mixed: 'Any!',
    list: '[String!]!',
    opt_list: '[Item!]',
    nested: 'EverythingNested!',
    nested_list: '[EverythingNestedList!]!',
  };
  for (const [field, type] of Object.entries(expected)) t.equal(fieldType(schema, 'Everything', field), type, field);
  t.equal(fieldType(schema, 'EverythingNested', 'inner'), 'EverythingNestedInner!');
  t.equal(fieldType(schema, 'EverythingNestedInner', 'leaf'), 'Boolean!');
  t.equal(fieldType(schema, 'EverythingNestedList', 'k'), 'String!');
  t.equal(fieldType(schema, 'Query', 'items'), '[Item!]!', 'an output list is [T!]!');
  t.ok(isObjectType(schema.getType('Item')));
});

t.test('anonymous inputs and outputs get names derived from the operation', async (t) => {
  const schema = buildSchema(
    buildSdl([
      op({
        name: '_do_thing',
        kind: 'mutation',
        input: Type.Object({ a: Str() }),
        output: Type.Object({ ok: Type.Boolean() }),
      }),
      ping,
    ]),
  );
  t.same(argTypes(schema, 'Mutation', '_do_thing'), { params: 'DoThingInput!' });
  t.equal(fieldType(schema, 'Mutation', '_do_thing'), 'DoThingOutput!');
});

t.test('a type shared by several operations is declared once', async (t) => {
  const Shared = InputObject('PaginationLike', { limit: OptInt64() });
  const sdl = buildSdl([
    ping,
    op({ name: 'a', input: InputObject('AReq', { pagination: Type.Optional(Shared) }) }),
    op({ name: 'b', input: InputObject('BReq', { pagination: Type.Optional(Shared) }) }),
  ]);
  t.equal(sdl.match(/input PaginationLike /g)?.length, 1);
});

t.test('deprecated operations stay, marked @deprecated', async (t) => {
  const schema = buildSchema(
    buildSdl([ping, op({ name: '_update_env', kind: 'mutation', deprecated: true, description: 'Deprecated: gone.' })]),
  );
  const field = schema.getMutationType()!.getFields()._update_env;
  t.ok(field);
  t.equal(field.deprecationReason, 'Deprecated: gone.');
});

t.test('descriptions with quotes and newlines stay valid SDL', async (t) => {
  const text = 'Says "hi"\nand """ ends \\ here"';
  const schema = buildSchema(
    buildSdl([op({ name: 'quoted', description: text, output: OutputObject('Q', { a: Str({ description: text }) }) })]),
  );
  t.equal(schema.getQueryType()!.getFields().quoted.description, text);
  t.equal(
    (schema.getType('Q') as { getFields(): Record<string, { description?: string | null }> }).getFields().a.description,
    text,
  );
});

t.test('loud failures', async (t) => {
  const Both = InputObject('Thing', { a: Str() });
  t.throws(
    () => buildSdl([op({ name: 'a', input: Both }), op({ name: 'b', output: Both })]),
    /"Thing" is used as both an input and an output type/,
  );
  t.throws(
    () =>
      buildSdl([
        op({ name: 'a', output: OutputObject('Dup', { a: Str() }) }),
        op({ name: 'b', output: OutputObject('Dup', { b: Str() }) }),
      ]),
    /type "Dup" is declared twice with different fields/,
  );
  t.throws(
    () => buildSdl([op({ name: 'a', output: OutputObject('Query', { a: Str() }) })]),
    /reserved type name "Query"/,
  );
  t.throws(
    () => buildSdl([op({ name: 'a', output: OutputObject('Int64', { a: Str() }) })]),
    /reserved type name "Int64"/,
  );
  t.throws(() => buildSdl([op({ name: 'bad-name' })]), /operation name "bad-name" is not a valid GraphQL name/);
  t.throws(
    () => buildSdl([op({ name: 'a', output: OutputObject('Has Space', { a: Str() }) })]),
    /not a valid GraphQL name/,
  );
  t.throws(() => buildSdl([op({ name: 'only', kind: 'mutation' })]), /at least one query/);
  t.throws(
    () => buildSdl([op({ name: 'a', output: Type.Object({ b: Type.Ref('Missing') }) })]),
    /references type "Missing", which no operation declares/,
  );
});

t.test('a self-referencing type through $ref', async (t) => {
  const Node = OutputObject('TreeNode', { name: Str(), children: Type.Array(Type.Ref('TreeNode')) });
  const schema = buildSchema(buildSdl([op({ name: 'tree', output: Node })]));
  t.equal(fieldType(schema, 'TreeNode', 'children'), '[TreeNode!]!');
});
