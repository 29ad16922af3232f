/**
 * Requests refused before any route sees them, answered in the error shape of the surface their
 * path lies under (refusal-shapes.ts; REST's `{code, message}` when no path can be read) instead
 * of Node's and Fastify's own bodies:
 * - `clientErrorHandler`: Node's HTTP parser refused the bytes (smuggling shapes such as
 *   Transfer-Encoding with Content-Length, bad framing, headers too large) or the request took
 *   longer than the request timeout. The connection is closed after the answer, as Node does.
 *   The path is read from the request line when the packet Node hands over (`err.rawPacket`)
 *   starts with one; a timeout comes without a packet, and its path is that of the connection's
 *   request whose body is still arriving (`rememberArrivingRequests`). Bytes with no request
 *   line, and headers that never finish, get REST's envelope. Each answer counts in the request metrics (route `unparsed`).
 * - `frameworkErrors`: Fastify could not route the request (a URL that does not decode); answered
 *   in the shape of the surface the path lies under, and counted in the request metrics (route
 *   `unmatched`).
 * These are server options: an app embedding the kernel keeps its own.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { countUnrouted } from './metrics.js';
import { refusalAnswer, refuse, surfaceOnServer, type RefusalKind } from './refusal-shapes.js';

const REASONS: Partial<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

function refusalOf(err: NodeJS.ErrnoException): RefusalKind {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'headers_too_large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'request_timeout';
    default:
      return 'malformed_request';
  }
}

/** The method and path of the request line that `packet` starts with, if it does. */
function requestLineOf(packet: unknown): { method: string; path: string } | undefined {
  if (!Buffer.isBuffer(packet)) return undefined;
  const line = /^([A-Z]+) (\/[^ ?\r\n]*)/.exec(packet.subarray(0, 2048).toString('latin1'));
  return line ? { method: line[1], path: line[2] } : undefined;
}

/**
 * Each connection's latest request, once its headers are read (the server's documented 'request'
 * event). A timeout comes with no packet; while that request's body is still arriving, its path
 * names the surface. Headers that never finish leave no request here and get REST's envelope:
 * reading the request line before the headers end would take a 'data' listener on every socket,
 * which makes Node hand each connection's bytes through the socket's stream instead of straight to
 * its HTTP parser, about 25 µs of CPU on every request (docs/http-layer.md).
 */
const latestRequests = new WeakMap<Socket, IncomingMessage>();

/** Keeps, per connection of `server`, its latest request, so a timed-out body is answered in its surface's shape. */
export function rememberArrivingRequests(server: Server): void {
  server.on('request', (req: IncomingMessage) => {
    latestRequests.set(req.socket, req);
  });
}

/** The method and path of the request still arriving on `socket`, if its headers were read. */
function arrivingRequestOf(socket: Socket): { method: string; path: string } | undefined {
  const req = latestRequests.get(socket);
  if (req === undefined || req.complete) return undefined;
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return { method: req.method ?? 'unknown', path: query < 0 ? url : url.slice(0, query) };
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
  const kind = refusalOf(err);
  const line = kind === 'request_timeout' ? arrivingRequestOf(socket) : requestLineOf(err.rawPacket);
  const surface = line !== undefined && this ? surfaceOnServer(this.server, line.path) : 'rest';
  const { status, headers, body } = refusalAnswer(surface, { kind });
  if (this) countUnrouted(this.server, line?.method ?? 'unknown', 'unparsed', status);
  const reason = REASONS[status] ?? 'Bad Request';
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
  // No route's hooks count it: the request metrics are told here.
  countUnrouted(request.server.server, request.method, 'unmatched', reply.statusCode);
}
