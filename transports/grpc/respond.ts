/**
 * Writing a gRPC response on an HTTP/2 stream (PROTOCOL-HTTP2.md, "Responses"): either headers,
 * messages and trailers carrying `grpc-status`, or "Trailers-Only", one header block that ends
 * the stream and carries the status itself. A stream the peer has already reset or closed is left
 * alone: the answer has nowhere to go.
 */
import { constants, type OutgoingHttpHeaders, type ServerHttp2Stream, type ServerStreamResponseOptions } from 'node:http2';
import { ServiceError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { GrpcFailure } from './wire/failure.js';
import { encodeStatusMessage, GRPC_STATUS } from './wire/status.js';
import { addMetadata } from './wire/metadata.js';

const OK_TRAILERS: OutgoingHttpHeaders = { 'grpc-status': '0' };

/**
 * gRPC has no use for a Date header. Node's `respond` adds one unless `sendDate` is false (an
 * option its implementation reads but its type declarations leave out).
 */
type ResponseOptions = ServerStreamResponseOptions & { sendDate: false };
const WITH_TRAILERS: ResponseOptions = { waitForTrailers: true, sendDate: false };
const TRAILERS_ONLY: ResponseOptions = { endStream: true, sendDate: false };

function sendOkTrailers(this: ServerHttp2Stream): void {
  this.sendTrailers(OK_TRAILERS);
}

export const gone = (stream: ServerHttp2Stream): boolean => stream.destroyed || stream.closed;

/** A unary success: the header block, one framed message, then `grpc-status: 0`. */
export function sendUnary(stream: ServerHttp2Stream, head: OutgoingHttpHeaders, frame: Buffer): void {
  if (gone(stream)) return;
  stream.respond(head, WITH_TRAILERS);
  stream.on('wantTrailers', sendOkTrailers); // emitted once per stream
  stream.end(frame);
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

export function statusHeaders(into: OutgoingHttpHeaders, answer: StatusAnswer): OutgoingHttpHeaders {
  for (const [k, v] of Object.entries(answer.headers ?? {})) {
    if (k.startsWith('grpc-')) into[k] = v; // the transport's own (grpc-accept-encoding)
    else addMetadata(into, k, v);
  }
  into['grpc-status'] = String(answer.status);
  if (answer.message) into['grpc-message'] = encodeStatusMessage(answer.message);
  return into;
}

/**
 * Trailers-Only: `head` (with any effects already in it) plus the status, ending the stream. When
 * the request is still arriving (an oversized or malformed message), the stream is then reset with
 * NO_ERROR so the client stops sending (RFC 9113 §8.1: a complete response may precede it).
 */
export function sendStatusOnly(stream: ServerHttp2Stream, head: OutgoingHttpHeaders, answer: StatusAnswer): void {
  if (gone(stream)) return;
  stream.respond(statusHeaders(head, answer), TRAILERS_ONLY);
  if (!stream.readableEnded) stream.close(constants.NGHTTP2_NO_ERROR);
}
