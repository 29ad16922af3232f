/**
 * What a failed call tells the client: a kernel ServiceError its gRPC status
 * (core/errors.ts) with the message as details and its headers (such as `www-authenticate`) as
 * trailers; anything else is INTERNAL without detail, logged here (no stack traces or SQL reach
 * clients).
 */
import { Metadata, status as grpcStatus, type StatusObject } from '@grpc/grpc-js';
import { ServiceError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { addMetadata } from './call-context.js';

export type CallStatus = Pick<StatusObject, 'code' | 'details' | 'metadata'>;

export function statusOf(err: unknown, logger: Logger, where: Record<string, unknown>): CallStatus {
  if (err instanceof ServiceError) {
    const metadata = new Metadata();
    for (const [k, v] of Object.entries(err.headers ?? {})) addMetadata(metadata, k, v);
    return { code: err.status.grpc, details: err.message, metadata };
  }
  logger.error({ err, transport: 'grpc', ...where }, 'gRPC call failed');
  return { code: grpcStatus.INTERNAL, details: '', metadata: new Metadata() };
}
