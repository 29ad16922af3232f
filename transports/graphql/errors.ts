/**
 * GraphQL error shaping: a ServiceError becomes an error entry with
 * its message and `extensions.code` in UPPER_SNAKE (core/errors.ts `errorStatus`). GraphQL-level
 * errors (syntax, unknown fields, bad variables) keep Mercurius's shape and answer 400.
 * Status rules:
 * - a response with resolver errors is HTTP 200, as GraphQL clients expect (GraphQL over HTTP);
 * - an error raised before execution (a hook of the surrounding context, e.g. a rate limit) keeps
 *   the status of its ServiceError code;
 * - nothing GraphQL itself reports is ever 5xx; only a real fault (something thrown that is neither
 *   a ServiceError nor a request error) is a 500, with its detail kept for the log.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import mercurius, { type MercuriusContext } from 'mercurius';
import { ServiceError } from '../../core/errors.js';
import { refuse } from '../http/refusal-shapes.js';
import { canonicalVariableErrors } from './variable-errors.js';

type Formatter = NonNullable<mercurius.MercuriusCommonOptions['errorFormatter']>;
type Formatted = ReturnType<Formatter>;

/** Rebuilds an error with a new message and extensions, keeping where it happened. */
function reshaped(err: GraphQLError, message: string, extensions: Record<string, unknown>): GraphQLError {
  const out = new GraphQLError(message, {
    ...(err.nodes ? { nodes: err.nodes } : {}),
    ...(err.source ? { source: err.source } : {}),
    ...(err.positions ? { positions: err.positions } : {}),
    ...(err.path ? { path: err.path } : {}),
    extensions,
  });
  // graphql-jit errors carry locations without nodes; keep them.
  if (!out.locations && err.locations) (out as { locations?: GraphQLError['locations'] }).locations = err.locations;
  return out;
}

const asGraphqlError = (err: unknown): GraphQLError =>
  err instanceof GraphQLError
    ? err
    : new GraphQLError(err instanceof Error ? err.message : String(err), {
        originalError: err instanceof Error ? err : undefined,
      });

/** Errors Mercurius and Fastify raise about the request itself carry a code and a 4xx status. */
function isFault(err: Error): boolean {
  const { statusCode, code } = err as { statusCode?: unknown; code?: unknown };
  if (typeof code === 'string' && code.startsWith('MER_ERR_')) return false;
  return typeof statusCode !== 'number' || statusCode >= 500;
}

export const formatGraphqlErrors: Formatter = (execution, context) => {
  let resolverError = false;
  let serviceStatus: number | undefined;
  let declaredStatus: number | undefined;
  let fault = false;
  const request = (context as { reply?: { request?: { body?: unknown; query?: unknown; method?: string } } }).reply
    ?.request;
  const canonical = execution.data
    ? undefined
    : canonicalVariableErrors(
        execution.errors,
        (context as { app?: { graphql?: { schema?: GraphQLSchema } } }).app?.graphql?.schema,
        (request?.method === 'GET' ? request.query : request?.body) as Parameters<typeof canonicalVariableErrors>[2],
      );
  const errors = (canonical ?? execution.errors).map((raw) => {
    const err = asGraphqlError(raw);
    const original = err.originalError;
    const inResolver = err.path !== undefined;
    const declared = (original as { statusCode?: unknown } | undefined)?.statusCode;
    if (typeof declared === 'number') declaredStatus ??= declared;
    if (inResolver) resolverError = true;
    if (original instanceof ServiceError) {
      if (!inResolver) serviceStatus ??= original.status.http;
      return reshaped(err, original.message, { ...err.extensions, code: original.status.graphql });
    }
    // Anything else thrown while resolving, or thrown before execution without a 4xx status, is a
    // fault of ours: its text stays in the log.
    if (original && !(original instanceof GraphQLError) && (inResolver || isFault(original))) {
      if (!inResolver) fault = true;
      return reshaped(err, 'internal server error', { code: 'INTERNAL' });
    }
    return err;
  });
  const result: Formatted = mercurius.defaultErrorFormatter({ ...(execution as ExecutionResult), errors }, context);
  let statusCode = result.statusCode;
  if (resolverError || execution.data) statusCode = 200;
  else if (serviceStatus !== undefined) statusCode = serviceStatus;
  else if (fault) statusCode = 500;
  else {
    // Nothing ran: the document or its variables were refused. Mercurius answers one validation
    // error with 400 but several with 200, and a variable refused by the graphql-jit compiled
    // query (the second use of a query text on) with 200 too; keep it to one rule: 400.
    statusCode = declaredStatus !== undefined && declaredStatus >= 400 && declaredStatus < 500 ? declaredStatus : 400;
  }
  return { statusCode, response: withCodes(result.response) };
};

/**
 * Every GraphQL error carries `extensions.code`. Errors GraphQL itself raises about
 * the document or its variables (syntax, unknown fields, bad variable values) are the client's
 * input being wrong: INVALID_ARGUMENT, as REST answers bad input. Applied to the serialized
 * response, after the HTTP status has been decided, so the status rules above are unchanged.
 */
function withCodes(response: Formatted['response']): Formatted['response'] {
  if (!response.errors) return response;
  const errors = response.errors.map((e) => {
    const json = plainly(e instanceof GraphQLError ? e.toJSON() : e);
    const code = (json.extensions as { code?: unknown } | undefined)?.code;
    return code === undefined ? { ...json, extensions: { ...json.extensions, code: 'INVALID_ARGUMENT' } } : json;
  });
  return { ...response, errors } as Formatted['response'];
}

/**
 * A document nested deeper than graphql-js' parser can recurse comes back from Mercurius as the
 * engine's own words, "Maximum call stack size exceeded": said plainly instead.
 */
function plainly<E extends { message: string }>(e: E): E {
  return e.message === 'Maximum call stack size exceeded'
    ? { ...e, message: 'invalid document: nested too deeply' }
    : e;
}

/**
 * The GraphQL scope's error handler (Mercurius's `errorHandler` option): what Mercurius's own does
 * (the error as a GraphQL error, through the formatter above), except for a body that grows past
 * the limit while it is read (a chunked one): that refusal is the HTTP layer's, answered from the
 * refusal table and closed only once the client has finished sending
 * (transports/http/answer-then-close.ts).
 */
export function graphqlErrorHandler(
  error: Error & { code?: string },
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | undefined {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    refuse(request, reply, { kind: 'body_too_large' });
    return undefined;
  }
  const fields = error as Partial<GraphQLError>;
  const graphqlError =
    error instanceof GraphQLError
      ? error
      : new GraphQLError(error.message, {
          ...(fields.nodes ? { nodes: fields.nodes } : {}),
          ...(fields.source ? { source: fields.source } : {}),
          ...(fields.positions ? { positions: fields.positions } : {}),
          ...(fields.path ? { path: fields.path } : {}),
          ...(fields.extensions ? { extensions: fields.extensions } : {}),
          originalError: error,
        });
  const context = { reply, app: request.server } as unknown as MercuriusContext;
  const { statusCode, response } = formatGraphqlErrors({ errors: [graphqlError] }, context);
  return reply.code(statusCode).send(response);
}
