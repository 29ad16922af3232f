/**
 * The HTTP/2 server against a peer that breaks the rules (RFC 9113 §5.4, §6, §8, §10.5): each
 * connection error ends in GOAWAY with the code the RFC names, each stream error in RST_STREAM,
 * and each limit holds.
 */
import t, { type Test } from 'tap';
import { ERROR, FLAG, FRAME, frame as frameOf, SETTING } from '../../../../transports/grpc/h2/frames.js';
import { encodeHeaders } from '../../../../transports/grpc/h2/hpack/encoder.js';
import { helloBytes, RawPeer, requestBytes } from './raw-peer.js';
import { echo, testServer } from './test-server.js';

type Server = Awaited<ReturnType<typeof testServer>>;

async function peerOf(t: Test, server: Server, settings: [number, number][] = []): Promise<RawPeer> {
  const peer = (await RawPeer.connect(server.port)).hello(settings);
  t.teardown(() => peer.close());
  return peer;
}

async function echoServer(t: Test, limits = {}): Promise<Server> {
  const server = await testServer(echo, limits);
  t.teardown(() => server.close(100));
  return server;
}

const END = FLAG.END_STREAM | FLAG.END_HEADERS;

t.test("the server speaks first with its SETTINGS, acknowledges the peer's, and answers PING", async (t) => {
  const peer = await peerOf(t, await echoServer(t));
  const settings = await peer.waitFor((f) => f.type === FRAME.SETTINGS && f.flags === 0);
  t.equal(settings.payload.readUInt16BE(0), SETTING.MAX_CONCURRENT_STREAMS);
  t.equal(settings.payload.readUInt32BE(2), 100);
  await peer.waitFor((f) => f.type === FRAME.SETTINGS && f.flags === FLAG.ACK);
  peer.frame(FRAME.PING, 0, 0, Buffer.from('12345678'));
  const pong = await peer.waitFor((f) => f.type === FRAME.PING);
  t.equal(pong.flags, FLAG.ACK);
  t.equal(pong.payload.toString(), '12345678');
});

t.test('a request on a raw connection is answered, trailers last', async (t) => {
  const peer = await peerOf(t, await echoServer(t));
  peer.request(1, END, { 'x-a': 'b' });
  const head = await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 1);
  t.equal(head.fields?.[':status'], '200');
  const trailers = await peer.waitFor(
    (f) => f.type === FRAME.HEADERS && f.stream === 1 && (f.flags & FLAG.END_STREAM) !== 0,
  );
  t.equal(trailers.fields?.['x-done'], 'yes');
});

t.test('connection errors end in GOAWAY with the code RFC 9113 names', async (t) => {
  const cases: [string, (p: RawPeer) => void, number][] = [
    ['DATA on stream 0', (p) => p.frame(FRAME.DATA, 0, 0, Buffer.from('x')), ERROR.PROTOCOL_ERROR],
    ['DATA on an idle stream', (p) => p.frame(FRAME.DATA, 0, 9, Buffer.from('x')), ERROR.PROTOCOL_ERROR],
    ['a stream id that is even', (p) => p.request(2, END), ERROR.PROTOCOL_ERROR],
    ['a stream id going backwards (§5.1.1)', (p) => p.request(5, END).request(3, END), ERROR.PROTOCOL_ERROR],
    [
      'DATA on an even stream, which only the server could open',
      (p) => p.request(3, END).frame(FRAME.DATA, 0, 2, Buffer.from('x')),
      ERROR.PROTOCOL_ERROR,
    ],
    [
      'WINDOW_UPDATE on an even stream',
      (p) => p.request(3, END).frame(FRAME.WINDOW_UPDATE, 0, 2, Buffer.from([0, 0, 0, 1])),
      ERROR.PROTOCOL_ERROR,
    ],
    [
      'RST_STREAM on an even stream',
      (p) => p.request(3, END).frame(FRAME.RST_STREAM, 0, 2, Buffer.from([0, 0, 0, 8])),
      ERROR.PROTOCOL_ERROR,
    ],
    ['PUSH_PROMISE from a client', (p) => p.frame(FRAME.PUSH_PROMISE, 0, 1, Buffer.alloc(4)), ERROR.PROTOCOL_ERROR],
    ['a PING of 7 bytes', (p) => p.frame(FRAME.PING, 0, 0, Buffer.alloc(7)), ERROR.FRAME_SIZE_ERROR],
    ['SETTINGS on a stream', (p) => p.frame(FRAME.SETTINGS, 0, 1), ERROR.PROTOCOL_ERROR],
    ['a frame above 16384 bytes', (p) => p.frame(FRAME.DATA, 0, 1, Buffer.alloc(16385)), ERROR.FRAME_SIZE_ERROR],
    [
      'a header block HPACK cannot decode',
      (p) => p.frame(FRAME.HEADERS, END, 1, Buffer.from([0x80])),
      ERROR.COMPRESSION_ERROR,
    ],
    [
      'CONTINUATION without HEADERS',
      (p) => p.frame(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, Buffer.from([0x82])),
      ERROR.PROTOCOL_ERROR,
    ],
    [
      'a header block interrupted by another frame',
      (p) => p.frame(FRAME.HEADERS, 0, 1, Buffer.from([0x82])).frame(FRAME.PING, 0, 0, Buffer.alloc(8)),
      ERROR.PROTOCOL_ERROR,
    ],
    [
      'a window grown past 2^31-1',
      (p) => p.frame(FRAME.WINDOW_UPDATE, 0, 0, Buffer.from([0x7f, 0xff, 0xff, 0xff])),
      ERROR.FLOW_CONTROL_ERROR,
    ],
    [
      'a connection window update of 0',
      (p) => p.frame(FRAME.WINDOW_UPDATE, 0, 0, Buffer.alloc(4)),
      ERROR.PROTOCOL_ERROR,
    ],
    [
      'SETTINGS_ENABLE_PUSH of 2',
      (p) => p.frame(FRAME.SETTINGS, 0, 0, Buffer.from([0, 2, 0, 0, 0, 2])),
      ERROR.PROTOCOL_ERROR,
    ],
    [
      'SETTINGS_MAX_FRAME_SIZE below 16384',
      (p) => p.frame(FRAME.SETTINGS, 0, 0, Buffer.from([0, 5, 0, 0, 0x10, 0])),
      ERROR.PROTOCOL_ERROR,
    ],
  ];
  const server = await echoServer(t);
  for (const [what, act, code] of cases) {
    const peer = await peerOf(t, server);
    act(peer);
    t.equal(await peer.goAwayCode(), code, what);
    await peer.closed;
  }
});

t.test('a connection that does not start with the preface is dropped', async (t) => {
  const server = await echoServer(t);
  const peer = await RawPeer.connect(server.port);
  peer.send(Buffer.from('GET / HTTP/1.1\r\nhost: x\r\n\r\n'));
  await peer.closed;
  t.pass('closed');
  const second = await RawPeer.connect(server.port);
  second.send(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')).frame(FRAME.PING, 0, 0, Buffer.alloc(8));
  t.equal(await second.goAwayCode(), ERROR.PROTOCOL_ERROR, 'the first frame must be SETTINGS');
});

t.test('a peer that never finishes its preface is dropped after the handshake timeout', async (t) => {
  const server = await echoServer(t, { handshakeTimeoutMs: 150 });
  const peer = await RawPeer.connect(server.port);
  peer.send(Buffer.from('PRI * HTTP'));
  const started = Date.now();
  await peer.closed;
  t.ok(Date.now() - started < 2000);
});

t.test('malformed requests are reset with PROTOCOL_ERROR; the connection carries on', async (t) => {
  const peer = await peerOf(t, await echoServer(t));
  const cases: [number, Record<string, string>][] = [
    [1, { 'X-Upper': 'a' }],
    [3, { connection: 'keep-alive' }],
    [5, { te: 'gzip' }],
    [7, { 'x-a': 'line\nbreak' }],
    [11, { 'x a': 'space in the name' }],
    [13, { 'x-\u007f': 'DEL in the name' }],
    [15, { 'x-b': ' leading space' }],
    [17, { 'x-c': 'trailing tab\t' }],
  ];
  for (const [stream, extra] of cases) peer.request(stream, END, extra);
  // Missing :path.
  peer.frame(FRAME.HEADERS, END, 19, Buffer.from([0x83, 0x86]));
  for (const stream of [1, 3, 5, 7, 11, 13, 15, 17, 19]) {
    const rst = await peer.waitFor((f) => f.type === FRAME.RST_STREAM && f.stream === stream);
    t.equal(rst.payload.readUInt32BE(0), ERROR.PROTOCOL_ERROR, `stream ${stream}`);
  }
  peer.request(21, END, { 'x-d': 'inner spaces and\ttabs are fine' });
  t.equal((await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 21)).fields?.[':status'], '200');
});

t.test('a header list above the limit is answered 431', async (t) => {
  const peer = await peerOf(t, await echoServer(t, { maxHeaderListSize: 1000 }));
  peer.request(1, END, { 'x-big': 'a'.repeat(1200) });
  t.equal((await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 1)).fields?.[':status'], '431');
  peer.request(3, END);
  t.equal(
    (await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 3)).fields?.[':status'],
    '200',
    'the table stayed in step',
  );
});

t.test('an endless run of CONTINUATION frames is cut off', async (t) => {
  const peer = await peerOf(t, await echoServer(t));
  peer.frame(FRAME.HEADERS, 0, 1, Buffer.from([0x83]));
  for (let i = 0; i < 100; i++) peer.frame(FRAME.CONTINUATION, 0, 1);
  t.equal(await peer.goAwayCode(), ERROR.ENHANCE_YOUR_CALM);
});

t.test('streams past SETTINGS_MAX_CONCURRENT_STREAMS are refused', async (t) => {
  const peer = await peerOf(t, await echoServer(t, { maxConcurrentStreams: 2 }));
  // Bodies never end, so the streams stay open.
  peer.request(1, FLAG.END_HEADERS).request(3, FLAG.END_HEADERS).request(5, FLAG.END_HEADERS);
  const rst = await peer.waitFor((f) => f.type === FRAME.RST_STREAM);
  t.equal(rst.stream, 5);
  t.equal(rst.payload.readUInt32BE(0), ERROR.REFUSED_STREAM);
});

/** Opens 1100 streams, each followed by `then` (which gets it reset), and expects the reset budget to end the connection. */
async function resetFlood(t: Test, then: (peer: RawPeer, id: number) => void): Promise<void> {
  const opened: number[] = [];
  const server = await testServer(
    (stream) => {
      opened.push(stream.id);
    },
    { maxConcurrentStreams: 5000 },
  );
  t.teardown(() => server.close(100));
  const peer = await peerOf(t, server);
  for (let id = 1; id < 2 * 1100; id += 2) then(peer.request(id, FLAG.END_HEADERS), id);
  t.equal(await peer.goAwayCode(), ERROR.ENHANCE_YOUR_CALM);
  t.ok(opened.length >= 1000 && opened.length < 1100, `${opened.length} streams reached the handler`);
}

t.test('opening and resetting streams at a flood rate ends the connection (rapid reset)', async (t) =>
  resetFlood(t, (peer, id) => peer.frame(FRAME.RST_STREAM, 0, id, Buffer.from([0, 0, 0, 8]))),
);

// A WINDOW_UPDATE of 0 on an open stream is a stream error (§6.9): the server resets it.
t.test('streams the peer makes this side reset draw on the same budget (MadeYouReset)', async (t) =>
  resetFlood(t, (peer, id) => peer.frame(FRAME.WINDOW_UPDATE, 0, id, Buffer.alloc(4))),
);

t.test('a reset from the peer closes the stream for its handler', async (t) => {
  let closed = false;
  const server = await testServer((stream) => {
    stream.onClose = () => (closed = true);
  });
  t.teardown(() => server.close(100));
  const peer = await peerOf(t, server);
  peer.request(1, FLAG.END_HEADERS).frame(FRAME.RST_STREAM, 0, 1, Buffer.from([0, 0, 0, 8]));
  await peer.waitFor((f) => f.type === FRAME.SETTINGS && f.flags === FLAG.ACK);
  while (!closed) await new Promise((r) => setTimeout(r, 5));
  t.pass('onClose ran');
});

t.test('a peer that stops reading is dropped once too much is queued for it', async (t) => {
  const server = await testServer(
    (stream) => {
      stream.onEnd = () => {
        stream.respond({ ':status': 200 }, false);
        // Keep writing until the connection is dropped: the kernel's socket buffers take the first
        // megabytes, then the bytes queue in the process.
        const timer = setInterval(() => stream.write(Buffer.alloc(1024 * 1024)), 5);
        stream.onClose = () => clearInterval(timer);
      };
    },
    { maxBufferedBytes: 256 * 1024 },
  );
  t.teardown(() => server.close(100));
  const peer = await RawPeer.connect(server.port);
  t.teardown(() => peer.close());
  // Windows as large as allowed, so flow control does not hold the data back; then stop reading.
  peer
    .hello([[SETTING.INITIAL_WINDOW_SIZE, 2 ** 31 - 1]])
    .frame(FRAME.WINDOW_UPDATE, 0, 0, Buffer.from([0x7f, 0xff, 0x00, 0x00]));
  peer.pause();
  peer.request(1, END);
  while (!server.problems.some((e) => /not reading/.test(e.message))) await new Promise((r) => setTimeout(r, 10));
  // A paused socket notices nothing; reading again, it finds the connection gone.
  peer.resume();
  await peer.closed;
  t.pass('dropped and logged');
});

t.test('a peer that keeps its windows shut is dropped once too much waits for them', async (t) => {
  let written = 0;
  const server = await testServer(
    (stream) => {
      stream.onEnd = () => {
        stream.respond({ ':status': 200 }, false);
        // Every byte waits: the peer's stream window is 0, so nothing reaches the socket.
        const timer = setInterval(() => {
          stream.write(Buffer.alloc(64 * 1024));
          written += 64 * 1024;
        }, 2);
        stream.onClose = () => clearInterval(timer);
      };
    },
    { maxBufferedBytes: 256 * 1024 },
  );
  t.teardown(() => server.close(100));
  const peer = await RawPeer.connect(server.port);
  t.teardown(() => peer.close());
  peer.hello([[SETTING.INITIAL_WINDOW_SIZE, 0]]);
  peer.request(1, END);
  await peer.closed;
  t.ok(
    server.problems.some((e) => /not reading/.test(e.message)),
    'dropped and logged',
  );
  t.ok(written <= 512 * 1024, `stopped soon after the limit (${written} bytes written by the handler)`);
});

t.test('after GOAWAY a new stream is refused', async (t) => {
  const opened: number[] = [];
  const server = await testServer((stream) => {
    opened.push(stream.id);
  });
  const peer = await peerOf(t, server);
  peer.request(1, FLAG.END_HEADERS);
  while (opened.length === 0) await new Promise((r) => setTimeout(r, 5));
  const closing = server.close(300);
  await peer.waitFor((f) => f.type === FRAME.GOAWAY);
  peer.request(3, END);
  const rst = await peer.waitFor((f) => f.type === FRAME.RST_STREAM && f.stream === 3);
  t.equal(rst.payload.readUInt32BE(0), ERROR.REFUSED_STREAM);
  await closing;
  await peer.closed;
  t.strictSame(opened, [1]);
});

t.test('a handler that throws ends its stream with INTERNAL_ERROR, not the connection or the process', async (t) => {
  const server = await testServer((stream) => {
    if (stream.headers[':path'] === '/ok') return echo(stream);
    if (stream.headers[':path'] === '/throw-at-once') throw new Error('handler bug at once');
    stream.onData = () => {
      if (stream.headers[':path'] === '/throw-on-data') throw new Error('handler bug on data');
    };
    stream.onEnd = () => {
      throw new Error('handler bug at end');
    };
  });
  t.teardown(() => server.close(100));
  const peer = await peerOf(t, server);
  const resetOf = async (id: number) =>
    (await peer.waitFor((f) => f.type === FRAME.RST_STREAM && f.stream === id)).payload.readUInt32BE(0);
  peer.request(1, END, { ':path': '/throw-at-end' });
  t.equal(await resetOf(1), ERROR.INTERNAL_ERROR, 'onEnd throwing resets its stream');
  peer
    .request(3, FLAG.END_HEADERS, { ':path': '/throw-on-data' })
    .frame(FRAME.DATA, FLAG.END_STREAM, 3, Buffer.from('x'));
  t.equal(await resetOf(3), ERROR.INTERNAL_ERROR, 'onData throwing resets its stream');
  peer.request(5, END, { ':path': '/throw-at-once' });
  t.equal(await resetOf(5), ERROR.INTERNAL_ERROR, 'the handler throwing at once resets its stream');
  peer.request(7, END, { ':path': '/ok' });
  const answer = await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 7);
  t.equal(answer.fields?.[':status'], '200', 'the same connection still answers');
  t.notOk(
    peer.frames.some((f) => f.type === FRAME.GOAWAY),
    'no GOAWAY',
  );
  for (const message of ['handler bug at end', 'handler bug on data', 'handler bug at once']) {
    t.ok(
      server.problems.some((e) => e.message === message),
      `logged: ${message}`,
    );
  }
});

t.test('a connection trickled one byte at a time is understood', async (t) => {
  const server = await echoServer(t);
  const whole = await RawPeer.connect(server.port);
  t.teardown(() => whole.close());
  // Everything a client sends for one request with a 20000-byte body (two DATA frames), in order.
  const body = Buffer.alloc(20_000, 1);
  const bytes = [
    helloBytes(),
    requestBytes(1, FLAG.END_HEADERS),
    frameOf(FRAME.DATA, 0, 1, body.subarray(0, 16_384)),
    frameOf(FRAME.DATA, FLAG.END_STREAM, 1, body.subarray(16_384)),
  ];
  const all = Buffer.concat(bytes);
  for (let i = 0; i < all.length; i++) whole.send(all.subarray(i, i + 1));
  const data = await whole.waitFor((f) => f.type === FRAME.DATA && f.stream === 1, 10_000);
  t.equal((JSON.parse(data.payload.toString()) as { size: number }).size, 20_000);
});

t.test(
  'trailers the peer sent before it saw the server reset the stream are dropped, not a connection error (§5.1)',
  async (t) => {
    // Answers at once, before the request body ends (a Trailers-Only answer): the server resets the stream with NO_ERROR.
    const server = await testServer((stream) => stream.respond({ ':status': 200, 'grpc-status': '0' }, true));
    t.teardown(() => server.close(100));
    const peer = await peerOf(t, server);
    peer.request(1, FLAG.END_HEADERS);
    const reset = await peer.waitFor((f) => f.type === FRAME.RST_STREAM && f.stream === 1);
    t.equal(reset.payload.readUInt32BE(0), ERROR.NO_ERROR);
    peer.frame(FRAME.HEADERS, END, 1, encodeHeaders({ 'x-late': 'trailer' }));
    peer.request(3, END);
    const answer = await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 3);
    t.equal(answer.fields?.[':status'], '200', 'the next stream is answered on the same connection');
    t.notOk(
      peer.frames.some((f) => f.type === FRAME.GOAWAY),
      'no GOAWAY',
    );
  },
);

t.test('a new header block on a stream that has closed is a STREAM_CLOSED connection error (§5.1)', async (t) => {
  const peer = await peerOf(t, await echoServer(t));
  peer.request(1, END);
  await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 1 && (f.flags & FLAG.END_STREAM) !== 0);
  peer.request(1, END);
  t.equal(await peer.goAwayCode(), ERROR.STREAM_CLOSED);
});

t.test('DATA on a stream that has closed is reset with STREAM_CLOSED; the connection carries on (§6.1)', async (t) => {
  const peer = await peerOf(t, await echoServer(t));
  peer.request(1, END);
  await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 1 && (f.flags & FLAG.END_STREAM) !== 0);
  peer.frame(FRAME.DATA, FLAG.END_STREAM, 1, Buffer.from('late'));
  const rst = await peer.waitFor((f) => f.type === FRAME.RST_STREAM && f.stream === 1);
  t.equal(rst.payload.readUInt32BE(0), ERROR.STREAM_CLOSED);
  peer.request(3, END);
  t.equal((await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 3)).fields?.[':status'], '200');
  t.notOk(
    peer.frames.some((f) => f.type === FRAME.GOAWAY),
    'no GOAWAY',
  );
});

t.test('a stream that depends on itself is reset with PROTOCOL_ERROR, and HPACK stays in step (§5.3.1)', async (t) => {
  const peer = await peerOf(t, await echoServer(t));
  // PRIORITY on stream 1 naming stream 1.
  peer.frame(FRAME.PRIORITY, 0, 1, Buffer.from([0, 0, 0, 1, 16]));
  const first = await peer.waitFor((f) => f.type === FRAME.RST_STREAM && f.stream === 1);
  t.equal(first.payload.readUInt32BE(0), ERROR.PROTOCOL_ERROR, 'PRIORITY frame');
  // HEADERS on stream 3 with priority fields naming stream 3. Its block adds `x-kept: yes` to the
  // dynamic table (literal with incremental indexing, RFC 7541 §6.2.1), which the next request
  // refers to by index 62 only: the refused block must still have been decoded.
  const literal = Buffer.concat([Buffer.from([0x40, 6]), Buffer.from('x-kept'), Buffer.from([3]), Buffer.from('yes')]);
  const block = Buffer.concat([
    encodeHeaders({ ':method': 'POST', ':scheme': 'http', ':path': '/x', ':authority': 'localhost' }),
    literal,
  ]);
  peer.frame(FRAME.HEADERS, END | FLAG.PRIORITY, 3, Buffer.concat([Buffer.from([0, 0, 0, 3, 16]), block]));
  const second = await peer.waitFor((f) => f.type === FRAME.RST_STREAM && f.stream === 3);
  t.equal(second.payload.readUInt32BE(0), ERROR.PROTOCOL_ERROR, 'HEADERS priority fields');
  peer.frame(
    FRAME.HEADERS,
    END,
    5,
    Buffer.concat([
      encodeHeaders({ ':method': 'POST', ':scheme': 'http', ':path': '/x', ':authority': 'localhost' }),
      Buffer.from([0x80 | 62]),
    ]),
  );
  const data = await peer.waitFor((f) => f.type === FRAME.DATA && f.stream === 5);
  t.equal((JSON.parse(data.payload.toString()) as { headers: Record<string, string> }).headers['x-kept'], 'yes');
  // A dependency on another stream is fine.
  peer.frame(FRAME.PRIORITY, 0, 7, Buffer.from([0, 0, 0, 5, 16]));
  peer.request(9, END);
  t.equal((await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 9)).fields?.[':status'], '200');
  t.notOk(
    peer.frames.some((f) => f.type === FRAME.RST_STREAM && f.stream === 7),
    'no reset for a dependency on another stream',
  );
});

t.test('a body that does not match its content-length is malformed (§8.1.1)', async (t) => {
  const peer = await peerOf(t, await echoServer(t));
  const bad: [number, () => void][] = [
    [1, () => peer.request(1, END, { 'content-length': '5' })],
    [
      3,
      () =>
        peer
          .request(3, FLAG.END_HEADERS, { 'content-length': '3' })
          .frame(FRAME.DATA, FLAG.END_STREAM, 3, Buffer.from('12345')),
    ],
    [
      5,
      () =>
        peer
          .request(5, FLAG.END_HEADERS, { 'content-length': '5' })
          .frame(FRAME.DATA, FLAG.END_STREAM, 5, Buffer.from('123')),
    ],
    [
      7,
      () =>
        peer
          .request(7, FLAG.END_HEADERS, { 'content-length': '5' })
          .frame(FRAME.DATA, 0, 7, Buffer.from('123'))
          .frame(FRAME.HEADERS, END, 7, encodeHeaders({ 'x-t': '1' })),
    ],
    [9, () => peer.request(9, END, { 'content-length': 'ten' })],
    [11, () => peer.request(11, END, { 'content-length': '-1' })],
  ];
  for (const [stream, send] of bad) {
    send();
    const rst = await peer.waitFor((f) => f.type === FRAME.RST_STREAM && f.stream === stream);
    t.equal(rst.payload.readUInt32BE(0), ERROR.PROTOCOL_ERROR, `stream ${stream}`);
  }
  // A matching length, in two DATA frames (one padded: padding does not count), is answered.
  const padded = Buffer.concat([Buffer.from([2]), Buffer.from('345'), Buffer.alloc(2)]);
  peer
    .request(13, FLAG.END_HEADERS, { 'content-length': '5' })
    .frame(FRAME.DATA, 0, 13, Buffer.from('12'))
    .frame(FRAME.DATA, FLAG.END_STREAM | FLAG.PADDED, 13, padded);
  const data = await peer.waitFor((f) => f.type === FRAME.DATA && f.stream === 13);
  t.equal((JSON.parse(data.payload.toString()) as { size: number }).size, 5);
  peer.request(15, END, { 'content-length': '0' });
  t.equal(
    (await peer.waitFor((f) => f.type === FRAME.HEADERS && f.stream === 15)).fields?.[':status'],
    '200',
    'content-length 0 with no body',
  );
  t.notOk(
    peer.frames.some((f) => f.type === FRAME.GOAWAY),
    'no GOAWAY',
  );
});

/** `bytes` of DATA on stream `id` in frames of the default maximum size; END_STREAM on the last when `end`. */
function sendBody(peer: RawPeer, id: number, bytes: number, end = false): RawPeer {
  for (let sent = 0; sent < bytes; sent += 16_384) {
    const size = Math.min(16_384, bytes - sent);
    peer.frame(FRAME.DATA, end && sent + size >= bytes ? FLAG.END_STREAM : 0, id, Buffer.alloc(size));
  }
  return peer;
}

/** A handler that never answers: the request's bytes stay with the stream until it ends. */
function holdOpen(): (stream: import('../../../../transports/grpc/h2/stream.js').H2Stream) => void {
  return (stream) => {
    stream.onData = () => {};
    stream.onEnd = () => {
      stream.respond({ ':status': 200 }, false);
      stream.end({});
    };
  };
}

t.test(
  'unfinished requests may hold only so many bytes: the stream that goes over is reset, the others go on (review findings)',
  async (t) => {
    const { ReceiveBudget } = await import('../../../../transports/grpc/h2/connection.js');
    const budget = new ReceiveBudget(200 * 1024, 300 * 1024);
    const server = await testServer(holdOpen(), { received: budget });
    t.teardown(() => server.close(100));
    const peer = await peerOf(t, server);
    // Streams that send 60 KiB each and never end: the fourth passes 200 KiB on this connection.
    for (const id of [1, 3, 5, 7]) sendBody(peer.request(id, FLAG.END_HEADERS), id, 60 * 1024);
    const reset = await peer.waitFor((f) => f.type === FRAME.RST_STREAM);
    t.equal(reset.stream, 7, 'the fourth stream');
    t.equal(reset.payload.readUInt32BE(0), ERROR.ENHANCE_YOUR_CALM, 'RST_STREAM ENHANCE_YOUR_CALM');
    t.equal(budget.used, 180 * 1024, 'its bytes were let go; the others still hold theirs');
    sendBody(peer, 1, 10, true);
    const done = await peer.waitFor(
      (f) => f.type === FRAME.HEADERS && f.stream === 1 && (f.flags & FLAG.END_STREAM) !== 0,
    );
    t.ok(done, 'an earlier stream finishes and is answered on the same connection');
    peer.close();
    while (budget.used !== 0) await new Promise((r) => setTimeout(r, 5));
    t.pass('all bytes let go once the connection is gone');
  },
);

t.test('the bound over all connections holds too; ended requests free their bytes', async (t) => {
  const { ReceiveBudget } = await import('../../../../transports/grpc/h2/connection.js');
  const budget = new ReceiveBudget(200 * 1024, 300 * 1024);
  const server = await testServer(holdOpen(), { received: budget });
  t.teardown(() => server.close(100));
  // One connection sends 2 MB in complete requests: each ends, so nothing adds up.
  const busy = await peerOf(t, server);
  for (let i = 0; i < 32; i++) {
    const id = 1 + 2 * i;
    sendBody(busy.request(id, FLAG.END_HEADERS), id, 60 * 1024, true);
    await busy.waitFor((f) => f.type === FRAME.HEADERS && f.stream === id && (f.flags & FLAG.END_STREAM) !== 0);
  }
  t.equal(budget.used, 0, 'complete requests hold nothing afterwards');
  // Two connections with 180 KiB each of unfinished requests: under 200 KiB apiece, over 300 in all.
  const a = await peerOf(t, server);
  const b = await peerOf(t, server);
  for (const id of [1, 3, 5]) sendBody(a.request(id, FLAG.END_HEADERS), id, 60 * 1024);
  await a.waitFor((f) => f.type === FRAME.SETTINGS && f.flags === FLAG.ACK);
  while (budget.used < 180 * 1024) await new Promise((r) => setTimeout(r, 5));
  for (const id of [1, 3, 5]) sendBody(b.request(id, FLAG.END_HEADERS), id, 60 * 1024);
  const reset = await b.waitFor((f) => f.type === FRAME.RST_STREAM);
  t.equal(reset.payload.readUInt32BE(0), ERROR.ENHANCE_YOUR_CALM, 'the stream past the total is reset');
  t.ok(budget.used <= 300 * 1024, `the total holds (${budget.used} bytes)`);
  a.frame(FRAME.PING, 0, 0, Buffer.from('still-ok'));
  t.equal((await a.waitFor((f) => f.type === FRAME.PING)).payload.toString(), 'still-ok', 'the other one goes on');
});

t.test('a connection with nothing open is closed after the idle timeout; one with a call open is not', async (t) => {
  const server = await testServer(holdOpen(), { idleTimeoutMs: 300 });
  t.teardown(() => server.close(100));
  const started = Date.now();
  const idle = await peerOf(t, server);
  const busy = await peerOf(t, server);
  busy.request(1, FLAG.END_HEADERS);
  const away = await idle.waitFor((f) => f.type === FRAME.GOAWAY);
  t.equal(away.payload.readUInt32BE(4), ERROR.NO_ERROR, 'GOAWAY NO_ERROR');
  await idle.closed;
  t.ok(Date.now() - started >= 290, `closed after ${Date.now() - started} ms`);
  await new Promise((r) => setTimeout(r, 400));
  busy.frame(FRAME.PING, 0, 0, Buffer.from('still-ok'));
  t.equal(
    (await busy.waitFor((f) => f.type === FRAME.PING)).payload.toString(),
    'still-ok',
    'the connection with an open call stays',
  );
});

t.test('after the idle GOAWAY a peer that keeps its half open still loses the socket', async (t) => {
  const { connect } = await import('node:net');
  const server = await testServer(holdOpen(), { idleTimeoutMs: 200 });
  t.teardown(() => server.close(100));
  const started = Date.now();
  const closedAfter = await new Promise<number>((resolve) => {
    const socket = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true }, () =>
      socket.write(helloBytes()),
    );
    // It keeps talking after the GOAWAY (PINGs), so it learns when the socket is gone.
    const timer = setInterval(
      () => socket.writable && socket.write(frameOf(FRAME.PING, 0, 0, Buffer.from('12345678'))),
      100,
    );
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.once('close', () => {
      clearInterval(timer);
      resolve(Date.now() - started);
    });
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
    }, 8_000).unref();
  });
  t.ok(closedAfter < 3_000, `closed by the server after ${closedAfter} ms`);
});
