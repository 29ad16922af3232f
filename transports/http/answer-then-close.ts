/**
 * An answer sent before the request's body has been read (a 413), then the connection closed,
 * such that the client reads it.
 *
 * Why not a plain reply with `Connection: close`: Node ends and destroys the socket as soon as
 * such a response is written. Bytes the client is still sending then arrive at a closed socket,
 * whose kernel answers them with a reset, and a reset discards what the client had not yet read:
 * a client that writes its whole body before reading (curl, most HTTP libraries) saw no status at
 * all, only EPIPE or ECONNRESET. So the answer is written at once, with `Connection: close` and
 * its Content-Length (the client has all of it), and the response is ended, which lets Node close
 * the connection, only once the rest of the body has been read and thrown away, up to a cap in
 * bytes and time: past those, the connection is closed as it stands.
 *
 * A request that waits for `100 Continue` (RFC 9110 §10.1.1) and is refused instead was told not
 * to send its body: its connection is closed at once.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { countWrittenByHand } from './metrics.js';

/** At most this much of a refused body is read and thrown away before the connection is closed. */
export const DRAIN_BYTES = 64 * 1024 * 1024;
/** The time a client gets to finish sending a refused body. */
export const DRAIN_MS = 10_000;

/** Requests held at `Expect: 100-continue` (oversized-bodies.ts) that have not been told to continue. */
const awaitingContinue = new WeakSet<IncomingMessage>();

export function holdAtContinue(req: IncomingMessage): void {
  awaitingContinue.add(req);
}

/** Whether `req` was held at `Expect: 100-continue`; it is no longer once this says so. */
export function releaseContinue(req: IncomingMessage): boolean {
  return awaitingContinue.delete(req);
}

export interface ClosingAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
}

export function answerThenClose(reply: FastifyReply, answer: ClosingAnswer): void {
  const req = reply.request.raw;
  const res = reply.raw;
  // Fastify's documented way to write the response itself; the headers set so far (security
  // headers, CORS) go with it.
  reply.hijack();
  // No onSend hook sees a hijacked reply: the request metrics are told here.
  countWrittenByHand(reply.request, answer.status);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  res.writeHead(answer.status, {
    ...headers,
    ...answer.headers,
    'content-length': Buffer.byteLength(answer.body),
    connection: 'close',
  });
  res.write(answer.body);
  if (req.complete || req.destroyed || awaitingContinue.has(req)) {
    awaitingContinue.delete(req);
    res.end();
    return;
  }
  let read = 0;
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > DRAIN_BYTES) finish();
  };
  const finish = () => {
    clearTimeout(timer);
    req.removeListener('data', onData);
    req.removeListener('end', finish);
    req.removeListener('close', finish);
    if (!res.writableEnded) res.end();
  };
  const timer = setTimeout(finish, DRAIN_MS);
  req.on('data', onData);
  req.once('end', finish);
  req.once('close', finish);
  req.resume();
}
