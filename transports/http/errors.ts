/**
 * The REST error envelope `{code, message}`. Fastify's own errors (bad
 * JSON, body too large, wrong content type) become clear 4xx answers in the same envelope.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type ErrorCode } from '../../core/errors.js';

export function sendError(reply: FastifyReply, err: ServiceError, status = err.status.http): FastifyReply {
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(status).send({ code: err.code, message: err.message });
}

/**
 * A refusal sent from a hook (CSRF, rate limit) before any transport's handler runs, in the
 * envelope of the transport the request was for: GraphQL clients read `errors[].extensions.code`
 * and must not find REST's `{code, message}` instead.
 */
export function sendRefusal(
  request: FastifyRequest,
  reply: FastifyReply,
  err: ServiceError,
  status = err.status.http,
): FastifyReply {
  if (!request.routeOptions.url?.endsWith('/graphql')) return sendError(reply, err, status);
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply
    .code(status)
    .send({ data: null, errors: [{ message: err.message, extensions: { code: err.status.graphql } }] });
}

/** Maps a framework error to the envelope; null when it is not a client error. */
export function clientErrorOf(err: FastifyError): { status: number; code: ErrorCode; message: string } | null {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'invalid_argument', message: 'request body is not valid JSON' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'invalid_argument', message: 'request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'invalid_argument', message: 'unsupported content type' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'invalid_argument', message: 'invalid content length' };
    default:
      break;
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    if (err instanceof SyntaxError)
      return { status: 400, code: 'invalid_argument', message: 'request body is not valid JSON' };
    return { status: err.statusCode, code: 'invalid_argument', message: err.message };
  }
  return null;
}
