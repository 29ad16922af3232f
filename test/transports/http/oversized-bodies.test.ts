/**
 * A body over --body-limit is answered 413, then the connection closed, such that a client reads
 * the answer however it sends (transports/http/oversized-bodies.ts, answer-then-close.ts): one
 * that writes its whole body before reading anything, one that reads while it writes, a chunked
 * one, and one that asks `Expect: 100-continue` (which gets the 413 instead of the 100). Raw
 * sockets, so that nothing between the test and the server reads or retries on its own.
 */
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const BODY_LIMIT = 4096;
const server = await startTestServer({ flags: { 'body-limit': BODY_LIMIT, 'mcp-enabled': true } });
t.teardown(() => server.close());
const port = Number(new URL(server.url).port);

interface Exchange {
  /** Everything the server sent, as text. */
  answer: string;
  /** What the client's writes ended with (an error code, or '' when all of it was written). */
  writeError: string;
  /** Whether the server closed the connection. */
  closed: boolean;
}

/** The status line and headers of the first final answer in `answer`, and its body. */
function finalAnswer(answer: string): { status: number; headers: string; body: string } {
  const blocks = answer.split('\r\n\r\n');
  let i = 0;
  while (/^HTTP\/1\.1 1\d\d /.test(blocks[i] ?? '')) i++;
  const head = blocks[i] ?? '';
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
    headers: head,
    body: blocks.slice(i + 1).join('\r\n\r\n'),
  };
}

/**
 * Writes `head` and `body`; with `readAfterWriting`, reads nothing until every byte of the body
 * has been handed to the kernel (or the write failed), as a client that sends first and reads
 * afterwards does. Resolves when the server closes the connection or after 15 s.
 */
function exchange(head: string, body: Buffer, readAfterWriting: boolean): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let answer = '';
    let writeError = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      resolve({ answer, writeError, closed });
      socket.destroy();
    };
    const timer = setTimeout(() => done(false), 15_000);
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => (writeError ||= err.code ?? String(err)));
    socket.on('close', () => done(true));
    socket.on('connect', () => {
      if (readAfterWriting) socket.pause();
      socket.write(head);
      socket.write(body, () => socket.resume());
    });
  });
}

const big = Buffer.alloc(8 * 1024 * 1024, 'x');
const headOf = (path: string, type: string, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${server.url}\r\nContent-Type: ${type}\r\n${extra}`;

const SURFACES: [string, string, RegExp][] = [
  ['/v1/signup', 'application/json', /"code":"invalid_argument"/],
  ['/graphql', 'application/json', /"errors":\[\{"message":"request body is too large"/],
  ['/oauth/token', 'application/x-www-form-urlencoded', /"error":"invalid_request"/],
  ['/oauth/revoke', 'application/x-www-form-urlencoded', /"error":"invalid_request"/],
  ['/scim/v2/Users', 'application/scim+json', /"status":"413"/],
  ['/mcp', 'application/json', /"jsonrpc":"2.0"/],
];

t.test('a client that writes its whole body, then reads, gets the 413 and a closed connection', async (t) => {
  for (const [path, type, shape] of SURFACES) {
    const r = await exchange(`${headOf(path, type)}Content-Length: ${big.length}\r\n\r\n`, big, true);
    const final = finalAnswer(r.answer);
    t.equal(final.status, 413, `${path}: 413`);
    t.match(final.headers, /\r\nconnection: close\r\n/i, `${path}: Connection: close`);
    t.match(final.body, shape, `${path}: the surface's shape`);
    t.equal(r.writeError, '', `${path}: the whole body was written (no EPIPE, no reset)`);
    t.ok(r.closed, `${path}: the server closed the connection`);
  }
});

t.test('a client that reads while writing gets the 413 as soon as it is sent', async (t) => {
  const r = await exchange(
    `${headOf('/v1/signup', 'application/json')}Content-Length: ${big.length}\r\n\r\n`,
    big,
    false,
  );
  t.equal(finalAnswer(r.answer).status, 413);
  t.equal(r.writeError, '');
  t.ok(r.closed);
});

t.test('a chunked body that grows past the limit: 413, then closed once it ends', async (t) => {
  for (const [path, type, shape] of SURFACES) {
    const chunked = Buffer.concat([Buffer.from(`${big.length.toString(16)}\r\n`), big, Buffer.from('\r\n0\r\n\r\n')]);
    const r = await exchange(`${headOf(path, type)}Transfer-Encoding: chunked\r\n\r\n`, chunked, true);
    const final = finalAnswer(r.answer);
    t.equal(final.status, 413, `${path} chunked: 413`);
    t.match(final.headers, /\r\nconnection: close\r\n/i, `${path} chunked: Connection: close`);
    t.match(final.body, shape, `${path} chunked: the surface's shape`);
    t.equal(r.writeError, '', `${path} chunked: the whole body was written`);
    t.ok(r.closed, `${path} chunked: closed`);
  }
});

/** Sends headers only and waits for the first thing the server answers (or its silence). */
function firstAnswer(head: string): Promise<{ text: string; socket: Socket }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let text = '';
    const timer = setTimeout(() => resolve({ text, socket }), 3_000);
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) {
        clearTimeout(timer);
        // The rest of an answer with a body arrives with its headers or right after.
        setTimeout(() => resolve({ text, socket }), 50);
      }
    });
  });
}

t.test('Expect: 100-continue with an oversized Content-Length: the 413 instead of 100', async (t) => {
  for (const [path, type, shape] of SURFACES) {
    const { text, socket } = await firstAnswer(
      `${headOf(path, type)}Content-Length: ${big.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    t.match(text, /^HTTP\/1\.1 413 /, `${path}: the first answer is the 413`);
    t.notMatch(text, /100 Continue/, `${path}: no 100 Continue`);
    t.match(text, /\r\nconnection: close\r\n/i, `${path}: Connection: close`);
    t.match(text, shape, `${path}: the surface's shape`);
    const closed = await new Promise<boolean>((resolve) => {
      if (socket.destroyed || socket.readableEnded) return resolve(true);
      socket.once('end', () => resolve(true));
      setTimeout(() => resolve(false), 2_000);
    });
    t.ok(closed, `${path}: closed without waiting for a body`);
    socket.destroy();
  }
});

t.test('Expect: 100-continue with a body that fits: 100, then the answer', async (t) => {
  const body = JSON.stringify({
    email: 'expect-continue@example.com',
    password: 'Secret-pass-123',
    confirm_password: 'Secret-pass-123',
  });
  const { text, socket } = await firstAnswer(
    `${headOf('/v1/signup', 'application/json')}Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
  );
  t.match(text, /^HTTP\/1\.1 100 Continue\r\n\r\n$/, 'told to continue, nothing else yet');
  const final = await new Promise<string>((resolve) => {
    let rest = '';
    socket.on('data', (chunk) => {
      rest += chunk.toString('latin1');
      if (/\r\n\r\n[\s\S]*\}/.test(rest)) resolve(rest);
    });
    socket.write(body);
    setTimeout(() => resolve(rest), 5_000);
  });
  t.match(final, /^HTTP\/1\.1 200 /, 'the operation ran once the body came');
  socket.destroy();
});

t.test('the server still answers afterwards', async (t) => {
  t.equal((await fetch(`${server.url}/v1/meta`)).status, 200);
});
