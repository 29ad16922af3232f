/**
 * Requests refused before any route sees them, answered in the error shape of the surface their
 * path lies under (refusal-shapes.ts; REST's `{code, message}` when no path can be read) instead
 * of Node's and Fastify's own bodies:
 * - `clientErrorHandler`: Node's HTTP parser refused the bytes (smuggling shapes such as
 *   Transfer-Encoding with Content-Length, bad framing, headers too large) or the request took
 *   longer than the request timeout. The connection is closed after the answer, as Node does.
 *   The path is read from the request line when the packet Node hands over (`err.rawPacket`)
 *   starts with one; a timeout has none and is answered in REST's envelope.
 * - `frameworkErrors`: Fastify could not route the request (a URL that does not decode); answered
 *   in the shape of the surface the path lies under.
 * These are server options: an app embedding the kernel keeps its own.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { refusalAnswer, refuse, surfaceOnServer } from './refusal-shapes.js';

interface Refusal {
  status: number;
  reason: string;
  code: string;
  message: string;
}

function refusalOf(err: NodeJS.ErrnoException): Refusal {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        code: 'invalid_argument',
        message: 'request headers are too large',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        reason: 'Request Timeout',
        code: 'deadline_exceeded',
        message: 'the request did not arrive in time',
      };
    default:
      return { status: 400, reason: 'Bad Request', code: 'invalid_argument', message: 'malformed HTTP request' };
  }
}

/** The path of the request line that `packet` starts with, if it does. */
function pathOfPacket(packet: unknown): string | undefined {
  if (!Buffer.isBuffer(packet)) return undefined;
  const line = /^[A-Z]+ (\/[^ ?\r\n]*)/.exec(packet.subarray(0, 2048).toString('latin1'));
  return line?.[1];
}

/** Fastify calls it bound to the server's instance. */
export function clientErrorHandler(
  this: FastifyInstance | undefined,
  err: NodeJS.ErrnoException & { rawPacket?: unknown },
  socket: Socket,
): void {
  // Nothing can be answered on a connection the peer reset or that is already closing.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, reason, code, message } = refusalOf(err);
  const path = code === 'invalid_argument' ? pathOfPacket(err.rawPacket) : undefined;
  const { headers, body } =
    path !== undefined && this
      ? refusalAnswer(surfaceOnServer(this.server, path), {
          kind: status === 431 ? 'headers_too_large' : 'malformed_request',
        })
      : { headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ code, message }) };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    () => socket.destroy(),
  );
  // The answer written (or a peer that does not read it), the socket is closed for good: a peer
  // keeping its half open must not hold it (a slowloris peer would stay connected).
  setTimeout(() => socket.destroy(), 1000).unref();
}

export function frameworkErrors(_err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // No route matched, so the surface is the one the path lies under (refusal-shapes.ts): SCIM
  // clients read RFC 7644 §3.12's error schema, OAuth clients RFC 6749 §5.2's, before routing too.
  refuse(request, reply, { kind: 'malformed_url' });
}
