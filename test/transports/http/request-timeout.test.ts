/**
 * A client that sends its body slowly, or never finishes it, loses the connection once the
 * request timeout passes (transports/http/server.ts; slowloris on the body). Black-box over a raw socket against the real server, with the timeout
 * shortened to one second.
 */
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { REQUEST_TIMEOUT_MS } from '../../../transports/http/server.js';
import { startTestServer } from '../../helpers/server.js';

const server = await startTestServer({ requestTimeoutMs: 1_000 });
t.teardown(() => server.close());
const { port } = new URL(server.url);

/** Opens a socket, sends `head`, and resolves with what the server sent and when it closed. */
function slowRequest(
  head: string,
  trickle?: { every: number; times: number },
): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(head);
      if (!trickle) return;
      let sent = 0;
      const timer = setInterval(() => {
        if (++sent > trickle.times || socket.destroyed) return clearInterval(timer);
        socket.write('x');
      }, trickle.every);
      socket.once('close', () => clearInterval(timer));
    });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.once('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
    setTimeout(() => reject(new Error('the server kept the connection open for 10 s')), 10_000).unref();
  });
}

const head = (length: number) =>
  `POST /v1/signup HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${server.url}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"email":"slow@example.com",`;

t.equal(REQUEST_TIMEOUT_MS, 30_000, 'the production timeout is thirty seconds');

t.test('a body that stops halfway: 408 and the connection is closed', async (t) => {
  const { answer, closedAfterMs } = await slowRequest(head(1000));
  t.match(answer, /^HTTP\/1\.1 408 /, 'request timeout');
  t.same(
    JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)),
    { code: 'deadline_exceeded', message: 'the request did not arrive in time' },
    'in the REST envelope',
  );
  t.ok(closedAfterMs >= 900 && closedAfterMs < 5_000, `closed after ${closedAfterMs} ms`);
});

t.test('a body trickled a byte at a time is cut too (the socket is never idle)', async (t) => {
  const { answer, closedAfterMs } = await slowRequest(head(1000), { every: 200, times: 100 });
  t.match(answer, /^HTTP\/1\.1 408 /, 'request timeout');
  t.ok(closedAfterMs < 5_000, `closed after ${closedAfterMs} ms, not after the 20 s of trickling`);
});

t.test('a peer that keeps its half open after the 408 still loses the socket', async (t) => {
  const started = Date.now();
  const outcome = await new Promise<string>((resolve) => {
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true }, () =>
      socket.write(head(1000)),
    );
    let answered = false;
    socket.on('data', () => (answered = true));
    // Keeps writing after the answer: the server must not keep reading.
    const timer = setInterval(() => socket.writable && socket.write('x'), 100);
    socket.on('error', () => {});
    socket.once('close', () => {
      clearInterval(timer);
      resolve(answered ? 'closed after answering' : 'closed without an answer');
    });
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      resolve('still open after 6 s');
    }, 6_000).unref();
  });
  t.equal(outcome, 'closed after answering', `after ${Date.now() - started} ms`);
});

t.test('nothing was written, and the server still answers', async (t) => {
  t.equal(await server.kernel.service('users').findByEmail('slow@example.com'), null);
  t.equal((await fetch(`${server.url}/v1/meta`)).status, 200);
});
