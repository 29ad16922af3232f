/**
 * Writing a gRPC response on an HTTP/2 stream (PROTOCOL-HTTP2.md, "Responses"): either headers,
 * messages and trailers carrying `grpc-status`, or "Trailers-Only", one header block that ends
 * the stream and carries the status itself. A stream the peer has already reset or closed is left
 * alone: the answer has nowhere to go (H2Stream ignores writes then).
 */
import { ServiceError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { encodeHeaders, type OutgoingHeaders } from './h2/hpack/encoder.js';
import type { H2Stream } from './h2/stream.js';
import { GrpcFailure } from './wire/failure.js';
import { addMetadata } from './wire/metadata.js';
import { encodeStatusMessage, GRPC_STATUS } from './wire/status.js';

/** `grpc-status: 0`, the trailers of every successful call, encoded once. */
const OK_TRAILERS = encodeHeaders({ 'grpc-status': '0' });

/** A unary success: the header block, one framed message, then `grpc-status: 0`. */
export function sendUnary(stream: H2Stream, head: OutgoingHeaders, frame: Buffer): void {
  if (!stream.writable) return;
  stream.respond(head, false);
  stream.write(frame);
  stream.end(OK_TRAILERS);
}

export interface StatusAnswer {
  status: number;
  message: string;
  headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * What a failure tells the client: a kernel ServiceError its status and message (and headers
 * such as `www-authenticate`), a transport failure its own; anything else is INTERNAL without
 * detail, logged here (DESIGN.md §3: no stack traces or SQL reach clients).
 */
export function statusOf(err: unknown, logger: Logger, where: Record<string, unknown>): StatusAnswer {
  if (err instanceof ServiceError) return { status: err.status.grpc, message: err.message, headers: err.headers };
  if (err instanceof GrpcFailure) return { status: err.status, message: err.message, headers: err.headers };
  logger.error({ err, transport: 'grpc', ...where }, 'gRPC call failed');
  return { status: GRPC_STATUS.INTERNAL, message: '' };
}

export function statusHeaders(into: OutgoingHeaders, answer: StatusAnswer): OutgoingHeaders {
  for (const [k, v] of Object.entries(answer.headers ?? {})) {
    if (k.startsWith('grpc-'))
      into[k] = v; // the transport's own (grpc-accept-encoding)
    else addMetadata(into, k, v);
  }
  into['grpc-status'] = String(answer.status);
  if (answer.message) into['grpc-message'] = encodeStatusMessage(answer.message);
  return into;
}

/**
 * Trailers-Only: `head` (with any effects already in it) plus the status, ending the stream (when
 * the request is still arriving, H2Stream then resets it with NO_ERROR so the client stops sending).
 */
export function sendStatusOnly(stream: H2Stream, head: OutgoingHeaders, answer: StatusAnswer): void {
  stream.respond(statusHeaders(head, answer), true);
}
