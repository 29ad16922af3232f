/**
 * The HTTP/2 server against node:http2's client (nghttp2, an independent implementation): header
 * blocks it compresses with Huffman codes and its dynamic table, request and response bodies
 * larger than the flow-control windows, trailers, and a graceful close.
 */
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import t from 'tap';
import { echo, testServer } from './test-server.js';

interface Answer {
  status: number;
  body: Buffer;
  trailers: IncomingHttpHeaders;
}

function request(client: ClientHttp2Session, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = client.request({ ':method': 'POST', ':path': '/echo', ...headers });
    const chunks: Buffer[] = [];
    let status = 0;
    let trailers: IncomingHttpHeaders = {};
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('trailers', (h) => (trailers = h));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ status, body: Buffer.concat(chunks), trailers }));
    req.on('error', reject);
    req.end(body);
  });
}

t.test('metadata of every printable character, compressed by nghttp2, reads back exactly', async (t) => {
  const server = await testServer(echo);
  t.teardown(() => server.close(100));
  const client = connect(`http://127.0.0.1:${server.port}`);
  t.teardown(() => client.close());
  const printable = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 60; i++) {
    // Repeated values exercise the dynamic table; fresh ones exercise the Huffman decoder.
    const value =
      i % 3 === 0
        ? printable
        : Array.from({ length: 1 + (random() % 200) }, () => printable[random() % printable.length]).join('');
    const headers = { 'x-value': value, 'x-index': String(i % 5), cookie: `a=${i}` };
    const answer = await request(client, headers);
    t.equal(answer.status, 200);
    const echoed = JSON.parse(answer.body.toString()) as { headers: Record<string, string> };
    t.equal(echoed.headers['x-value'], value, `request ${i}`);
    t.equal(echoed.headers['x-index'], String(i % 5));
    t.equal(echoed.headers[':path'], '/echo');
    t.equal(answer.trailers['x-done'], 'yes', 'trailers arrive');
  }
});

t.test('bodies larger than every window flow both ways', async (t) => {
  const big = Buffer.alloc(300_000, 7);
  const server = await testServer((stream) => {
    let size = 0;
    stream.onData = (c) => (size += c.length);
    stream.onEnd = () => {
      stream.respond({ ':status': 200 }, false);
      stream.write(Buffer.from(`${size}\n`));
      stream.write(big);
      stream.end({ 'x-size': String(size) });
    };
  });
  t.teardown(() => server.close(100));
  // A small client window makes most of the response wait for WINDOW_UPDATEs.
  const client = connect(`http://127.0.0.1:${server.port}`, { settings: { initialWindowSize: 1000 } });
  t.teardown(() => client.close());
  const upload = Buffer.alloc(500_000, 3);
  const answers = await Promise.all([request(client, {}, upload), request(client, {}, upload)]);
  for (const a of answers) {
    t.equal(a.trailers['x-size'], '500000', 'the whole upload arrived');
    t.equal(a.body.length, '500000\n'.length + big.length, 'the whole response arrived');
    t.ok(a.body.subarray(7).equals(big));
  }
});

t.test('close lets a call in progress finish, then ends the connection', async (t) => {
  let finish: (() => void) | undefined;
  const server = await testServer((stream) => {
    stream.onEnd = () => {
      finish = () => {
        stream.respond({ ':status': 200 }, false);
        stream.write(Buffer.from('late'));
        stream.end({});
      };
    };
  });
  const client = connect(`http://127.0.0.1:${server.port}`);
  const goaway = new Promise((resolve) => client.once('goaway', resolve));
  const answer = request(client, {});
  while (!finish) await new Promise((r) => setTimeout(r, 10));
  const closed = server.close(5000);
  await goaway;
  finish();
  t.equal((await answer).body.toString(), 'late');
  await closed;
  client.close();
});

t.test('a client that shrinks its header table is told so in the next header block (RFC 7541 §4.2)', async (t) => {
  const server = await testServer(echo);
  t.teardown(() => server.close(100));
  for (const headerTableSize of [0, 1000]) {
    const client = connect(`http://127.0.0.1:${server.port}`, { settings: { headerTableSize } });
    const answer = await request(client, { 'x-table': String(headerTableSize) }, Buffer.from('hi'));
    t.equal(answer.status, 200, `header table size ${headerTableSize}: answered`);
    t.equal(answer.trailers['x-done'], 'yes', `header table size ${headerTableSize}: trailers read`);
    const again = await request(client, { 'x-table': 'second' });
    t.equal(again.status, 200, `header table size ${headerTableSize}: a second request on the same connection`);
    client.close();
  }
});
