/**
 * The database socket watch: a request left without an answer destroys the socket after the
 * limit; a socket whose last request was answered stays open however long it idles.
 */
import { createServer, type Socket } from 'node:net';
import t from 'tap';
import { UnansweredError, watchedSocket } from '../../storage/answer-watch.js';

const LIMIT_MS = 300;

// A peer that echoes what it gets, except a line "hold", which it never answers.
const peer = createServer((s) => s.on('data', (d) => (d.toString() === 'hold' ? undefined : s.write(d))));
await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
const port = (peer.address() as { port: number }).port;
t.teardown(() => new Promise<void>((r) => peer.close(() => r())));

const open = async (): Promise<Socket> => {
  const socket = watchedSocket(LIMIT_MS);
  socket.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  return socket;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('an unanswered request ends the socket with ETIMEDOUT after the limit', async (t) => {
  const socket = await open();
  const closed = new Promise<Error | undefined>((r) => socket.once('error', r));
  const start = Date.now();
  socket.write('hold');
  const err = await closed;
  t.type(err, UnansweredError);
  t.equal((err as UnansweredError).code, 'ETIMEDOUT');
  t.ok(Date.now() - start >= LIMIT_MS - 20, 'not before the limit');
  t.ok(socket.destroyed, 'the socket is gone');
});

t.test('an answered socket idles past the limit and stays open, then is watched again', async (t) => {
  const socket = await open();
  socket.write('ping');
  await new Promise((r) => socket.once('data', r));
  await sleep(LIMIT_MS * 3);
  t.notOk(socket.destroyed, 'idle after its answer: kept');
  const closed = new Promise((r) => socket.once('error', r));
  socket.write('hold');
  t.type(await closed, UnansweredError, 'a later unanswered request still ends it');
});
