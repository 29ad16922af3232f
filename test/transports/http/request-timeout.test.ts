/**
 * A client that sends its body slowly, or never finishes it, loses the connection once the
 * request timeout passes (transports/http/server.ts; slowloris on the body); the 408 takes the
 * error shape of the surface the stalled request's line names once its headers were read
 * (transports/http/client-errors.ts). Black-box over a raw socket against the real server, with the timeout
 * shortened to one second.
 */
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { REQUEST_TIMEOUT_MS } from '../../../transports/http/server.js';
import { startTestServer } from '../../helpers/server.js';

const server = await startTestServer({ requestTimeoutMs: 1_000, flags: { 'mcp-enabled': true } });
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

t.test("a body that never finishes under a surface of its own: the 408 in that surface's shape", async (t) => {
  const stalled = (path: string) =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${server.url}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"a":`;
  const shapes: [string, unknown][] = [
    [
      '/scim/v2/Users',
      {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
        status: '408',
        detail: 'the request did not arrive in time',
      },
    ],
    ['/oauth/token', { error: 'invalid_request', error_description: 'the request did not arrive in time' }],
    ['/mcp', { jsonrpc: '2.0', error: { code: -32000, message: 'the request did not arrive in time' }, id: null }],
    [
      '/graphql',
      {
        data: null,
        errors: [{ message: 'the request did not arrive in time', extensions: { code: 'DEADLINE_EXCEEDED' } }],
      },
    ],
    ['/v1/signup', { code: 'deadline_exceeded', message: 'the request did not arrive in time' }],
  ];
  for (const [path, shape] of shapes) {
    const { answer } = await slowRequest(stalled(path));
    t.match(answer, /^HTTP\/1\.1 408 /, `${path}: request timeout`);
    t.same(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), shape, `${path}: the surface's shape`);
  }
});

t.test('headers dribbled across packets, then a body that stalls: still named by its request line', async (t) => {
  const outcome = await new Promise<string>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write('POST /oauth/token HTTP/1.1\r\n');
      setTimeout(
        () =>
          socket.writable &&
          socket.write(
            `Host: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 30\r\n\r\ngrant`,
          ),
        200,
      );
    });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.once('close', () => resolve(answer));
  });
  t.match(outcome, /^HTTP\/1\.1 408 /);
  t.match(outcome, /"error":"invalid_request"/, 'RFC 6749 shape, though the last packet held no request line');
});

t.test('headers that never finish: 408 in the REST envelope, whatever the path', async (t) => {
  // The request line is not read before the headers end (transports/http/client-errors.ts).
  for (const path of ['/oauth/token', '/v1/signup']) {
    const { answer } = await slowRequest(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: applic`);
    t.match(answer, /^HTTP\/1\.1 408 /, `${path}: request timeout`);
    t.same(
      JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)),
      { code: 'deadline_exceeded', message: 'the request did not arrive in time' },
      `${path}: the REST envelope`,
    );
  }
});

t.test('a keep-alive connection whose second request stalls in its headers is not named by the first', async (t) => {
  const first = `GET /v1/meta HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
  const { answer } = await slowRequest(`${first}POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Ty`);
  t.match(answer, /^HTTP\/1\.1 200 /, 'the first request is answered');
  const second = answer.slice(answer.indexOf('HTTP/1.1 408 '));
  t.match(second, /^HTTP\/1\.1 408 /, 'the second times out');
  t.same(JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4)), {
    code: 'deadline_exceeded',
    message: 'the request did not arrive in time',
  });
});

t.test('a connection with no request line yet: the REST envelope', async (t) => {
  const { answer } = await slowRequest('\r\n');
  t.match(answer, /^HTTP\/1\.1 408 /);
  t.same(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), {
    code: 'deadline_exceeded',
    message: 'the request did not arrive in time',
  });
});

t.test('nothing was written, and the server still answers', async (t) => {
  t.equal(await server.kernel.service('users').findByEmail('slow@example.com'), null);
  t.equal((await fetch(`${server.url}/v1/meta`)).status, 200);
});
