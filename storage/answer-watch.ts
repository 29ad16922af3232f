/**
 * A database socket that gives up on an answer that does not come. Once the client has written a
 * request and nothing has come back for `timeoutMs`, the socket is destroyed with an `ETIMEDOUT`
 * error: the query waiting on it fails (a 503 to the client, core/errors.ts), the driver marks the
 * connection ended, and the pool drops it instead of handing it out again. An idle connection (the
 * last bytes were an answer) is left alone, so a quiet pool keeps its connections.
 *
 * It watches the plain TCP socket: under TLS the driver's own time limits bound the wait instead
 * (pg's `query_timeout`).
 */
import { Socket } from 'node:net';

export class UnansweredError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(timeoutMs: number) {
    super(`the database sent no answer within ${timeoutMs} ms`);
    this.name = 'UnansweredError';
  }
}

export function watchAnswers(socket: Socket, timeoutMs: number): Socket {
  // bytesWritten as of the last bytes read: more written since is a request still unanswered.
  let answeredUpTo = 0;
  socket.on('data', () => {
    answeredUpTo = socket.bytesWritten;
    // A driver may set its own idle time limit (or none) once connected; the watch's comes back.
    if (socket.timeout !== timeoutMs) socket.setTimeout(timeoutMs);
  });
  socket.on('timeout', () => {
    if (socket.bytesWritten > answeredUpTo) socket.destroy(new UnansweredError(timeoutMs));
  });
  socket.setTimeout(timeoutMs);
  return socket;
}

/** A new, unconnected socket under watch (pg's `stream` option connects it). */
export const watchedSocket = (timeoutMs: number): Socket => watchAnswers(new Socket(), timeoutMs);
