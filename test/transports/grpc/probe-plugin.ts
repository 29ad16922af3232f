/**
 * A plugin whose operations exercise every shape the gRPC projection maps: no input, nested
 * objects with and without `$id`, lists of scalars and of objects, `Map` fields, a list result,
 * union-of-literal strings, an error of any code, a crash, a non-ASCII message, a slow answer, cookie effects and `grpc: false`.
 * Its handlers echo what the context saw, so the tests observe the transport, not the plugin.
 */
import { ERROR_CODES, ServiceError } from '../../../core/errors.js';
import { defineOperation } from '../../../core/operations.js';
import { definePlugin } from '../../../core/plugin.js';
import {
  InputObject,
  Int64,
  JsonMap,
  MessageResponse,
  OptInt64,
  OptJsonMap,
  OptStr,
  OptStrList,
  OutputObject,
  Str,
  StrList,
  Type,
} from '../../../core/schema.js';

const Address = Type.Object(
  {
    city: Str({ max: 100 }),
    geo: Type.Object({ lat: Type.Number(), lng: Type.Number() }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

const LineItem = Type.Object({ sku: Str({ max: 50 }), qty: Int64({ min: 1 }) }, { additionalProperties: false });

export const ProbeItem = OutputObject('ProbeItem', { id: Type.String(), n: Int64(), meta: JsonMap() });

export const probePlugin = definePlugin({
  name: 'grpc-probe',
  description: 'Test operations covering the gRPC mapping.',
  operations: [
    defineOperation({
      name: 'probe_ping',
      kind: 'query',
      access: 'public',
      description: 'No input; reports what the transport put in the context.',
      output: OutputObject('ProbePong', { pong: Type.Boolean(), transport: Type.String(), ip: Type.String() }),
      handler: async (ctx) => ({ pong: true, transport: ctx.transport, ip: ctx.ip }),
    }),
    defineOperation({
      name: 'probe_echo',
      kind: 'mutation',
      access: 'public',
      description: 'Echoes nested objects, lists and Map fields, and the metadata it saw.',
      input: InputObject('ProbeEchoRequest', {
        name: Str({ min: 1, max: 100 }),
        count: OptInt64({ min: 0, max: 1_000_000_000_000 }),
        tags: OptStrList(),
        attrs: OptJsonMap(),
        address: Type.Optional(Address),
        items: Type.Optional(Type.Array(LineItem, { maxItems: 10 })),
      }),
      output: OutputObject('ProbeEcho', {
        name: Type.String(),
        count: OptInt64(),
        tags: StrList(),
        attrs: OptJsonMap(),
        address: Type.Optional(Address),
        items: Type.Array(LineItem),
        seen: Type.Object({
          authorization: OptStr(),
          origin: OptStr(),
          user_agent: OptStr(),
          cookies: JsonMap(),
        }),
      }),
      handler: async (ctx, input) => ({
        name: input.name,
        ...(input.count !== undefined ? { count: input.count } : {}),
        tags: input.tags ?? [],
        ...(input.attrs !== undefined ? { attrs: input.attrs } : {}),
        ...(input.address !== undefined ? { address: input.address } : {}),
        items: input.items ?? [],
        seen: {
          ...(ctx.header('authorization') !== undefined ? { authorization: ctx.header('authorization') } : {}),
          ...(ctx.header('origin') !== undefined ? { origin: ctx.header('origin') } : {}),
          ...(ctx.header('user-agent') !== undefined ? { user_agent: ctx.header('user-agent') } : {}),
          cookies: { ...ctx.cookies },
        },
      }),
    }),
    defineOperation({
      name: 'probe_list',
      kind: 'query',
      access: 'public',
      description: 'A list result (wrapped in ProbeListResponse on gRPC).',
      output: Type.Array(ProbeItem),
      handler: async () => [
        { id: 'a', n: 1, meta: { nested: { deep: [1, 'two', null] } } },
        { id: 'b', n: 9_007_199_254_740_991, meta: {} },
      ],
    }),
    defineOperation({
      name: 'probe_fail',
      kind: 'mutation',
      access: 'public',
      description: 'Fails with the given code, or crashes with an internal detail that must not leak.',
      input: InputObject('ProbeFailRequest', {
        code: Type.Union([...ERROR_CODES, 'crash', 'unicode'].map((c) => Type.Literal(c))),
      }),
      output: MessageResponse,
      handler: async (_ctx, input) => {
        if (input.code === 'crash') throw new Error('SELECT * FROM secrets -- internal detail');
        if (input.code === 'unicode') throw new ServiceError('invalid_argument', 'naïve 100% ✓ fails');
        throw new ServiceError(input.code as (typeof ERROR_CODES)[number], `probe failed with ${input.code}`, {
          'www-authenticate': 'Bearer realm="probe"',
        });
      },
    }),
    defineOperation({
      name: 'probe_wait',
      kind: 'query',
      access: 'public',
      description: 'Answers after the given number of milliseconds (deadlines).',
      input: InputObject('ProbeWaitRequest', { ms: Int64({ min: 0, max: 5000 }) }),
      output: MessageResponse,
      handler: async (_ctx, input) => {
        await new Promise((resolve) => setTimeout(resolve, input.ms));
        return { message: 'waited' };
      },
    }),
    defineOperation({
      name: 'probe_cookie',
      kind: 'mutation',
      access: 'public',
      description: 'Sets one cookie and clears another.',
      output: MessageResponse,
      handler: async (ctx) => {
        ctx.setCookie('probe-session', 'a b;c', { sameSite: 'lax', maxAge: 3600 });
        ctx.clearCookie('probe-old');
        return { message: 'cookies set' };
      },
    }),
    defineOperation({
      name: 'probe_hidden',
      kind: 'query',
      access: 'public',
      description: 'Not on gRPC.',
      grpc: false,
      output: MessageResponse,
      handler: async () => ({ message: 'hidden' }),
    }),
  ],
});
