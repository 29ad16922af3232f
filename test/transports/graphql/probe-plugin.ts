/**
 * A small plugin whose operations exercise every shape the GraphQL projection handles: `params`,
 * `param` and flat arguments, Int64, Map, lists, nested objects with and without `$id`, an output
 * list, errors, a cookie effect and an operation kept off GraphQL.
 */
import { ServiceError } from '../../../core/errors.js';
import { defineOperation } from '../../../core/operations.js';
import { definePlugin } from '../../../core/plugin.js';
import {
  InputObject,
  Int64,
  MessageResponse,
  OptInt64,
  OptJsonMap,
  OptStr,
  OptStrList,
  OutputObject,
  Str,
  Type,
} from '../../../core/schema.js';

export const EchoItem = OutputObject('EchoItem', { key: Str(), value: Int64() });

export const EchoRequest = InputObject('EchoRequest', {
  text: Str({ max: 64 }),
  count: OptInt64({ min: 0, max: 1000 }),
  tags: OptStrList({ maxItems: 5 }),
  data: OptJsonMap(),
  nested: Type.Optional(Type.Object({ level: Int64(), note: OptStr() }, { additionalProperties: false })),
});

export const EchoResponse = OutputObject('EchoResponse', {
  text: Str(),
  count: Type.Optional(Int64()),
  tags: Type.Array(Type.String()),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { 'x-scalar': 'Map' })),
  nested: Type.Optional(Type.Object({ level: Int64(), note: Type.Optional(Type.String()) })),
  items: Type.Array(EchoItem),
});

export const probePlugin = definePlugin({
  name: 'graphql-probe',
  description: 'Operations that exercise the GraphQL projection (tests only).',
  operations: [
    defineOperation({
      name: 'echo',
      kind: 'query',
      access: 'public',
      description: 'Returns its input.',
      input: EchoRequest,
      output: EchoResponse,
      handler: async (_ctx, input) => ({
        text: input.text,
        ...(input.count !== undefined ? { count: input.count } : {}),
        tags: input.tags ?? [],
        ...(input.data ? { data: input.data } : {}),
        ...(input.nested ? { nested: input.nested } : {}),
        items: (input.tags ?? []).map((key, i) => ({ key, value: (input.count ?? 0) + i })),
      }),
    }),
    defineOperation({
      name: 'lookup',
      kind: 'query',
      access: 'public',
      description: 'Fails on purpose for some ids.',
      input: InputObject('LookupRequest', { id: Str({ max: 64 }) }),
      graphql: { arg: 'param' },
      output: MessageResponse,
      handler: async (_ctx, input) => {
        if (input.id === 'missing') throw new ServiceError('not_found', 'no such thing');
        if (input.id === 'forbidden') throw new ServiceError('permission_denied', 'not yours');
        if (input.id === 'boom') throw new Error('database exploded at SELECT * FROM secrets');
        return { message: `found ${input.id}` };
      },
    }),
    defineOperation({
      name: 'add_numbers',
      kind: 'mutation',
      access: 'public',
      description: 'Adds two integers given as plain arguments.',
      input: InputObject('AddNumbersRequest', { a: Int64(), b: OptInt64() }),
      graphql: { arg: 'flat' },
      output: OutputObject('SumResponse', { sum: Int64() }),
      handler: async (_ctx, input) => ({ sum: input.a + (input.b ?? 0) }),
    }),
    defineOperation({
      name: 'list_items',
      kind: 'query',
      access: 'public',
      description: 'A list answer.',
      output: Type.Array(EchoItem),
      handler: async () => [
        { key: 'one', value: 1 },
        { key: 'big', value: 2 ** 40 },
      ],
    }),
    defineOperation({
      name: 'set_flavor',
      kind: 'mutation',
      access: 'public',
      description: 'Sets a cookie.',
      input: InputObject('SetFlavorRequest', { flavor: Str({ max: 32 }) }),
      output: MessageResponse,
      handler: async (ctx, input) => {
        ctx.setCookie('flavor', input.flavor, { sameSite: 'lax' });
        return { message: `flavor ${input.flavor}` };
      },
    }),
    defineOperation({
      name: 'read_flavor',
      kind: 'query',
      access: 'public',
      description: 'Reads the cookie back.',
      output: MessageResponse,
      handler: async (ctx) => ({ message: ctx.cookie('flavor') ?? 'none' }),
    }),
    defineOperation({
      name: 'rest_only',
      kind: 'query',
      access: 'public',
      description: 'Not on GraphQL.',
      graphql: false,
      output: MessageResponse,
      handler: async () => ({ message: 'rest only' }),
    }),
  ],
});
