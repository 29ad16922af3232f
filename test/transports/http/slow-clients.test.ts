/**
 * A slow client cannot starve the others (slowloris): 500 connections from one address, each
 * sending nothing, dribbling its headers or dribbling its body, hold at most
 * `--connection-limit-per-ip` sockets (the rest are closed as they open); a client on another
 * address is served at once meanwhile; and the header and body timeouts close every slow
 * connection, after which the slow address is served again. Black-box over raw sockets against
 * the real server, with the request timeout (headers and body) shortened to six seconds. The
 * second address is 127.0.0.2, which Linux routes over loopback like 127.0.0.1.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const TIMEOUT_MS = 6_000;
const SLOW = 500;
const server = await startTestServer({ requestTimeoutMs: TIMEOUT_MS });
t.teardown(() => server.close());
const port = Number(new URL(server.url).port);
const limit = server.kernel.config.number('connection-limit-per-ip', 0);

type Kind = 'silent' | 'headers' | 'body';

interface SlowConnection {
  kind: Kind;
  socket: Socket;
  /** When the server closed it, or undefined while it is open. */
  closedAt?: number;
  answer: string;
  closed: Promise<void>;
}

/** Opens a connection from 127.0.0.1 that sends its request a line or a byte at a time, forever. */
function slowConnection(kind: Kind, i: number): SlowConnection {
  const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.1' });
  const conn: SlowConnection = { kind, socket, answer: '', closed: Promise.resolve() };
  let timer: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    if (kind === 'silent') return;
    socket.write(
      kind === 'headers'
        ? `GET /v1/meta HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`
        : `POST /v1/signup HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${server.url}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"email":"slow${i}@example.com",`,
    );
    let n = 0;
    timer = setInterval(() => {
      if (socket.writable) socket.write(kind === 'headers' ? `X-Slow-${n++}: 1\r\n` : ' ');
    }, 250);
  });
  socket.on('data', (chunk) => (conn.answer += chunk.toString('latin1')));
  socket.on('error', () => {});
  conn.closed = new Promise((resolve) =>
    socket.once('close', () => {
      clearInterval(timer);
      conn.closedAt = Date.now();
      resolve();
    }),
  );
  return conn;
}

/** GET /v1/meta from `localAddress`: its status and how long it took. */
function metaFrom(localAddress: string): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/meta', localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Date.now() - started }));
    });
    req.on('error', reject);
    req.end();
  });
}

const KINDS: Kind[] = ['silent', 'headers', 'body'];
const slow: SlowConnection[] = [];
const opened = Date.now();

t.test('the cap is on by default', async (t) => {
  t.ok(limit > 0 && limit < SLOW, `--connection-limit-per-ip is ${limit}`);
});

t.test(`${SLOW} slow connections from one address hold at most the cap`, async (t) => {
  for (let i = 0; i < SLOW; i++) slow.push(slowConnection(KINDS[i % KINDS.length], i));
  // Those over the cap are closed as the server takes them; the others stay open.
  const settled = Date.now() + TIMEOUT_MS - 1_000;
  while (slow.filter((c) => c.closedAt !== undefined).length < SLOW - limit && Date.now() < settled)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const open = slow.filter((c) => c.closedAt === undefined);
  t.equal(open.length, limit, `${open.length} held, ${SLOW - open.length} closed as they opened`);
  for (const kind of KINDS)
    t.ok(
      open.some((c) => c.kind === kind),
      `held ones include ${kind} connections`,
    );
  t.ok(
    slow.every((c) => c.answer === ''),
    'no slow connection got an answer (those closed at once were never read)',
  );
});

t.test('meanwhile a client on another address is served at once', async (t) => {
  for (let i = 0; i < 5; i++) {
    const { status, ms } = await metaFrom('127.0.0.2');
    t.equal(status, 200);
    t.ok(ms < TIMEOUT_MS / 2, `answered in ${ms} ms`);
  }
  const stillHeld = slow.filter((c) => c.closedAt === undefined).length;
  t.equal(stillHeld, limit, 'while the slow connections are still held');
});

t.test('and a new connection from the slow address is closed as it opens', async (t) => {
  await t.rejects(metaFrom('127.0.0.1'), { code: 'ECONNRESET' });
});

t.test('the header and body timeouts close every slow connection', async (t) => {
  const deadline = TIMEOUT_MS + 3_000;
  await Promise.race([Promise.all(slow.map((c) => c.closed)), new Promise((r) => setTimeout(r, deadline))]);
  const open = slow.filter((c) => c.closedAt === undefined);
  t.equal(open.length, 0, 'all closed by the timeouts');
  for (const c of open) c.socket.destroy();
  const answered = slow.filter((c) => c.answer !== '');
  t.ok(answered.length > 0, `${answered.length} held connections were answered before closing`);
  t.ok(
    answered.every((c) => /^HTTP\/1\.1 408 /.test(c.answer)),
    'each with 408 Request Timeout',
  );
  const last = Math.max(...slow.map((c) => c.closedAt ?? Infinity)) - opened;
  t.ok(last >= TIMEOUT_MS - 500, `the last closed after ${last} ms, by the timeout`);
});

t.test('then the slow address is served again', async (t) => {
  const { status } = await metaFrom('127.0.0.1');
  t.equal(status, 200);
  t.equal(await server.kernel.service('users').findByEmail('slow1@example.com'), null, 'nothing was written');
});
