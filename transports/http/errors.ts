/**
 * The REST error envelope `{code, message}` of an operation's error. Fastify's own errors (bad
 * JSON, body too large, wrong content type) are refusals, answered in each surface's shape
 * (refusal-shapes.ts).
 */
import type { FastifyError, FastifyReply } from 'fastify';
import { ServiceError } from '../../core/errors.js';
import type { Refusal } from './refusal-shapes.js';

export function sendError(reply: FastifyReply, err: ServiceError, status = err.status.http): FastifyReply {
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(status).send({ code: err.code, message: err.message });
}

/**
 * The refusal a framework error or a hook's ServiceError stands for (refusal-shapes.ts); null
 * when it is not a client error.
 */
export function refusalOfError(err: FastifyError | ServiceError): Refusal | null {
  if (err instanceof ServiceError) {
    if (err.code === 'resource_exhausted')
      return { kind: 'rate_limited', message: err.message, ...(err.headers ? { headers: err.headers } : {}) };
    if (err.status.http >= 500) return null;
    return {
      kind: 'rejected',
      status: err.status.http,
      code: err.code,
      message: err.message,
      ...(err.headers ? { headers: err.headers } : {}),
    };
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { kind: 'malformed_body' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { kind: 'body_too_large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { kind: 'unsupported_media_type' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { kind: 'invalid_content_length' };
    default:
      break;
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    if (err instanceof SyntaxError) return { kind: 'malformed_body' };
    return { kind: 'rejected', status: err.statusCode, code: 'invalid_argument', message: err.message };
  }
  return null;
}
