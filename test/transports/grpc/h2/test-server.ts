/** Test helper: the HTTP/2 server with a handler chosen by each test, on a free port. */
import { ReceiveBudget, type ConnectionLimits } from '../../../../transports/grpc/h2/connection.js';
import { startH2Server, type H2Server } from '../../../../transports/grpc/h2/server.js';
import type { H2Stream } from '../../../../transports/grpc/h2/stream.js';

export const DEFAULT_TEST_LIMITS: Omit<ConnectionLimits, 'received'> = {
  maxConcurrentStreams: 100,
  maxHeaderListSize: 65_536,
  handshakeTimeoutMs: 5_000,
  maxBufferedBytes: 16 * 1024 * 1024,
  idleTimeoutMs: 60_000,
};

/** Answers 200 with the request's headers and body size as JSON once the body has ended. */
export function echo(stream: H2Stream): void {
  let size = 0;
  stream.onData = (chunk) => {
    size += chunk.length;
  };
  stream.onEnd = () => {
    stream.respond({ ':status': 200, 'content-type': 'application/json' }, false);
    stream.write(Buffer.from(JSON.stringify({ headers: stream.headers, size })));
    stream.end({ 'x-done': 'yes' });
  };
}

export async function testServer(
  handler: (stream: H2Stream) => void,
  limits: Partial<ConnectionLimits> = {},
): Promise<H2Server & { problems: Error[] }> {
  const problems: Error[] = [];
  const server = await startH2Server({
    host: '127.0.0.1',
    port: 0,
    // A budget of its own per server: it counts bytes, so sharing one would couple the tests.
    limits: { ...DEFAULT_TEST_LIMITS, received: new ReceiveBudget(16 * 1024 * 1024, 64 * 1024 * 1024), ...limits },
    onStream: handler,
    addressOf: (remote) => remote ?? 'unknown',
    onProblem: (err) => problems.push(err),
  });
  return Object.assign(server, { problems });
}
