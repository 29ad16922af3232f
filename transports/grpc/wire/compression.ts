/**
 * Compressed request messages (grpc/doc/compression.md): a message with the compressed flag is
 * encoded with the request's `grpc-encoding`. gzip and deflate are accepted; the inflated size is
 * bounded by the same limit as a plain message, so a small compressed body cannot expand without
 * bound. Responses are sent uncompressed, which every client must accept.
 */
import { gunzipSync, inflateSync } from 'node:zlib';
import { GrpcFailure } from './failure.js';
import { GRPC_STATUS } from './status.js';
import type { IncomingMessage } from './messages.js';

export const ACCEPT_ENCODING = 'identity,deflate,gzip';

/** Refuses an encoding this server cannot read, up front (UNIMPLEMENTED names what it accepts). */
export function checkEncoding(encoding: string | string[] | undefined): void {
  if (encoding === undefined || encoding === 'identity' || encoding === 'gzip' || encoding === 'deflate') return;
  throw new GrpcFailure(GRPC_STATUS.UNIMPLEMENTED, `unsupported grpc-encoding ${JSON.stringify(encoding)}`, {
    'grpc-accept-encoding': ACCEPT_ENCODING,
  });
}

export function messageBytes(message: IncomingMessage, encoding: string | string[] | undefined, limit: number): Buffer {
  if (!message.compressed) return message.bytes;
  const inflate = encoding === 'gzip' ? gunzipSync : encoding === 'deflate' ? inflateSync : undefined;
  // grpc/doc/compression.md: a message flagged compressed without an encoding other than
  // identity MUST fail with INTERNAL.
  if (!inflate) throw new GrpcFailure(GRPC_STATUS.INTERNAL, 'compressed message without a grpc-encoding');
  try {
    return inflate(message.bytes, { maxOutputLength: limit });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new GrpcFailure(GRPC_STATUS.RESOURCE_EXHAUSTED, `decompressed message larger than max (${limit})`);
    }
    throw new GrpcFailure(
      GRPC_STATUS.INVALID_ARGUMENT,
      `compressed message could not be read with ${String(encoding)}`,
    );
  }
}
