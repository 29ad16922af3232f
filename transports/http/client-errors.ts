/**
 * Requests refused before any route sees them, answered in the REST envelope `{code, message}`
 * instead of Node's and Fastify's own bodies:
 * - `clientErrorHandler`: Node's HTTP parser refused the bytes (smuggling shapes such as
 *   Transfer-Encoding with Content-Length, bad framing, headers too large) or the request took
 *   longer than the request timeout. The connection is closed after the answer, as Node does.
 * - `frameworkErrors`: Fastify could not route the request (a URL that does not decode); answered
 *   in the shape of the surface the path lies under.
 * These are server options: an app embedding the kernel keeps its own.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { refuse } from './refusal-shapes.js';

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

export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  // Nothing can be answered on a connection the peer reset or that is already closing.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, reason, code, message } = refusalOf(err);
  const body = JSON.stringify({ code, message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
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
