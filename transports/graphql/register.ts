/**
 * Mounts the GraphQL transport: Mercurius with JIT at
 * `/graphql` of the Fastify context it is given, the schema generated from the operation table, and
 * one resolver per operation that runs the kernel pipeline and applies the context's effects
 * (Set-Cookie) to the reply.
 *
 * Mercurius lives in a child scope of the given context, so its decorators, its error handler and
 * its `application/graphql` parser stay inside it while the context's hooks (CSRF, CORS, rate
 * limits) run for `/graphql` too. The scope is registered without awaiting it: Fastify copies a
 * context's hooks into a child scope when the child loads, which is after the caller's plugin body
 * has finished, so hooks added to the context before or after this call both apply.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { buildSchema, NoSchemaIntrospectionCustomRule, parse, Kind, type ValidationRule } from 'graphql';
import cookie from '@fastify/cookie';
import mercurius, { type IResolvers, type MercuriusContext } from 'mercurius';
import type { Kernel } from '../../core/kernel.js';
import { ServiceError } from '../../core/errors.js';
import type { CompiledOperation } from '../../core/operations.js';
import { applyEffects, contextFromRequest } from '../http/context.js';
import { noStore } from '../http/security-headers.js';
import { formatGraphqlErrors, graphqlErrorHandler } from './errors.js';
import { queryLimitsRule } from './query-limits.js';
import { anyScalar, int64Scalar, mapScalar } from './scalars.js';
import { buildSdl } from './sdl.js';
import { registerPlayground } from '../http/reference-pages/playground.js';

/** Mercurius compiles a query with graphql-jit once it has been seen this many times. */
const JIT_AFTER = 1;

type Args = Record<string, unknown>;

/** The operation's raw input from the root field's arguments (nulls are stripped by the kernel). */
function inputOf(op: CompiledOperation, args: Args): unknown {
  if (!op.def.input) return undefined;
  const projection = op.def.graphql === false ? {} : (op.def.graphql ?? {});
  if (projection.arg === 'flat') return { ...args };
  return args[projection.arg ?? 'params'] ?? undefined;
}

function resolverFor(kernel: Kernel, op: CompiledOperation) {
  return async (_root: unknown, args: Args, context: MercuriusContext): Promise<unknown> => {
    const reply = context.reply;
    if (op.def.changesState && reply.request.method === 'GET') {
      throw new ServiceError('method_not_allowed', `${op.def.name} changes state: send it with POST`);
    }
    const ctx = contextFromRequest(kernel, reply.request, 'graphql');
    try {
      return await kernel.invokeCompiled(op, ctx, inputOf(op, args));
    } finally {
      // Failed operations may clear cookies too (for example an expired admin session).
      applyEffects(ctx, reply);
    }
  };
}

export function graphqlResolvers(kernel: Kernel, ops: readonly CompiledOperation[]): IResolvers {
  const Query: Record<string, ReturnType<typeof resolverFor>> = {};
  const Mutation: Record<string, ReturnType<typeof resolverFor>> = {};
  for (const op of ops) {
    if (op.def.graphql === false) continue;
    (op.def.kind === 'query' ? Query : Mutation)[op.def.name] = resolverFor(kernel, op);
  }
  return {
    Query,
    ...(Object.keys(Mutation).length ? { Mutation } : {}),
    Int64: int64Scalar,
    Map: mapScalar,
    Any: anyScalar,
  } as unknown as IResolvers;
}

/**
 * Any operation name is accepted. GraphQL rejects an `operationName` that names no
 * operation of the document; when the document has exactly one operation the name is only a label
 * (clients send their own), so it is dropped instead of failing the request.
 */
const MAX_OPERATION_NAME = 256;

export function relaxOperationName(payload: unknown): void {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return;
  const p = payload as { query?: unknown; operationName?: unknown };
  if (typeof p.operationName !== 'string' || typeof p.query !== 'string' || p.operationName === '') return;
  const name = p.operationName.replace(/[^_0-9A-Za-z]/g, '');
  // A name longer than any real one goes to the parse below: a pattern built from 40,000
  // letters is too large for the regex engine, which would throw and make the request a 500.
  if (
    name === p.operationName &&
    name.length <= MAX_OPERATION_NAME &&
    new RegExp(`\\b(query|mutation|subscription)\\s+${name}\\b`).test(p.query)
  )
    return;
  try {
    const ops = parse(p.query).definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    if (ops.length === 1) delete p.operationName;
  } catch {
    // A syntax error is reported by Mercurius with its own message.
  }
}

/** A request-level problem: answered 400 with the GraphQL error shape, like Mercurius's own. */
class GraphqlRequestError extends Error {
  readonly statusCode = 400;
  readonly code = 'GRAPHQL_BAD_REQUEST';
}

/**
 * Runs before Mercurius's handler. A non-string `query` would reach graphql-js as if it were a
 * parsed document and fail as a 500 inside validation, so it is refused here. Callback style:
 * it runs on every GraphQL request, and an async hook costs a promise per request.
 */
function prepareRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  // Answers carry tokens and personal data: no cache on the way keeps them (as REST's: rest.ts).
  noStore(reply);
  const payload = request.method === 'GET' ? request.query : request.body;
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
    const query = (payload as { query?: unknown }).query;
    if (query !== undefined && query !== null && typeof query !== 'string')
      return done(new GraphqlRequestError('query must be a string'));
  }
  relaxOperationName(payload);
  done();
}

export async function registerGraphql(app: FastifyInstance, kernel: Kernel, ops: CompiledOperation[]): Promise<void> {
  const sdl = buildSdl(ops);
  // Fail at the call, not at the first request, when the generated schema is not valid GraphQL.
  buildSchema(sdl);
  const validationRules: ValidationRule[] = [
    queryLimitsRule,
    ...(kernel.config.bool('enable-graphql-introspection', true) ? [] : [NoSchemaIntrospectionCustomRule]),
  ];
  const playground = kernel.config.bool('enable-playground', false);
  if (playground) registerPlayground(app);
  void app.register(async function graphqlScope(scope) {
    // Cookies through @fastify/cookie (transports/http/context.ts), also when GraphQL is mounted alone.
    if (!scope.hasReplyDecorator('setCookie')) await scope.register(cookie);
    await scope.register(mercurius, {
      schema: sdl,
      resolvers: graphqlResolvers(kernel, ops),
      path: '/graphql',
      jit: JIT_AFTER,
      // Mercurius's GraphiQL loads React from a CDN, which the service's policy blocks: the
      // playground is served from this server's own assets instead (http/reference-pages/playground.ts).
      graphiql: false,
      validationRules,
      errorFormatter: formatGraphqlErrors,
      // Mercurius's handler with the HTTP layer's answer to an oversized body (errors.ts).
      errorHandler: graphqlErrorHandler as unknown as (
        error: Error,
        request: FastifyRequest,
        reply: FastifyReply,
      ) => void,
      additionalRouteOptions: { preValidation: prepareRequest },
    });
  });
}
