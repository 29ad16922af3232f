/**
 * The gRPC wire protocol as the server (grpc-js) speaks it (grpc/doc/PROTOCOL-HTTP2.md), driven by
 * a raw HTTP/2 client so each malformed or unusual request can be sent exactly: the strict
 * protobuf check, size limits, compression, deadlines, the read timeout, unknown methods, status
 * messages and cancellation. Where grpc-js itself answers (framing, sizes, deadlines), the tests
 * pin that the answer is a caller-side status with a message. The well-formed paths are covered
 * through the grpc-js client in server.test.ts.
 */
import {
  connect,
  constants,
  type ClientHttp2Session,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2';
import { gzipSync, deflateSync } from 'node:zlib';
import t from 'tap';
import type { MethodDefinition } from '@grpc/proto-loader';
import { metaPlugin } from '../../../plugins/meta/index.js';
import { loadProtoText } from '../../../transports/grpc/load.js';
import { buildProto } from '../../../transports/grpc/proto.js';
import { startGrpcServer } from '../../../transports/grpc/server.js';
import { grpcClient } from '../../helpers/grpc-client.js';
import { bootTestKernel } from '../../helpers/kernel.js';
import { probePlugin } from './probe-plugin.js';

const LIMIT = 2048;
const booted = await bootTestKernel({
  plugins: [metaPlugin, probePlugin],
  flags: { 'admin-secret': 'wire-secret', 'body-limit': String(LIMIT) },
});
const { kernel } = booted;
const ops = [...kernel.operations.values()];
const READ_TIMEOUT_MS = 400;
const server = await startGrpcServer(kernel, ops, {
  host: '127.0.0.1',
  port: 0,
  shutdownGraceMs: 300,
  requestReadTimeoutMs: READ_TIMEOUT_MS,
});
const session: ClientHttp2Session = connect(`http://127.0.0.1:${server.port}`);
session.on('error', () => {});
t.teardown(async () => {
  session.close();
  await server.close();
  await booted.close();
});

type Wire = Record<string, unknown>;
const definition = loadProtoText(buildProto(ops));
const method = (name: string) =>
  (definition['latchkey.v1.AuthorizerService'] as Record<string, MethodDefinition<Wire, Wire>>)[name];
const ECHO = method('ProbeEcho');
const PING = method('ProbePing');
const WAIT = method('ProbeWait');
const FAIL = method('ProbeFail');

function frame(bytes: Uint8Array, compressed = false): Buffer {
  const out = Buffer.alloc(5 + bytes.length);
  out[0] = compressed ? 1 : 0;
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, 5);
  return out;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders;
  body: Buffer;
  /** grpc-status from the trailers, or from the headers of a Trailers-Only answer. */
  grpcStatus: number | undefined;
  grpcMessage: string | undefined;
}

/**
 * One request with the given body written in the given chunks; resolves when the status arrives
 * (in the trailers, or in the headers of a Trailers-Only answer), then drops the stream, so a
 * request left open still gets its answer read. `grpc-message` is percent-decoded.
 */
function send(
  path: string,
  chunks: Buffer[],
  extra: OutgoingHttpHeaders = {},
  opts: { end?: boolean } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...extra,
    });
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    const body: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const source = trailers['grpc-status'] !== undefined ? trailers : headers;
      const message = source['grpc-message'] as string | undefined;
      resolve({
        status: Number(headers[':status']),
        headers,
        trailers,
        body: Buffer.concat(body),
        grpcStatus: source['grpc-status'] === undefined ? undefined : Number(source['grpc-status']),
        grpcMessage: message === undefined ? undefined : decodeURIComponent(message),
      });
      if (!req.closed) req.close(constants.NGHTTP2_CANCEL);
    };
    req.on('response', (h, flags) => {
      headers = h;
      if (h['grpc-status'] !== undefined && flags & constants.NGHTTP2_FLAG_END_STREAM) finish();
    });
    req.on('trailers', (h) => {
      trailers = h;
      finish();
    });
    req.on('data', (c: Buffer) => body.push(c));
    req.on('error', (err) => (done ? undefined : reject(err)));
    req.on('close', finish);
    for (const c of chunks) req.write(c);
    if (opts.end !== false) req.end();
  });
}

const decode = (a: Answer, def: MethodDefinition<Wire, Wire>) => def.responseDeserialize(a.body.subarray(5));

t.test('a well-formed call answers headers, one message and grpc-status 0 in the trailers', async (t) => {
  const a = await send(PING.path, [frame(PING.requestSerialize({}))]);
  t.equal(a.status, 200);
  t.match(a.headers['content-type'], /^application\/grpc/);
  t.equal(a.grpcStatus, 0);
  t.equal(a.trailers['grpc-status'], '0', 'status in the trailers, not the headers');
  t.equal(a.body.readUInt32BE(1), a.body.length - 5, 'one length-prefixed message');
  t.same(decode(a, PING), { pong: true, transport: 'grpc', ip: '127.0.0.1' });
});

t.test(
  'a request message the protobuf encoding does not allow is INVALID_ARGUMENT, not decoded leniently',
  async (t) => {
    const text = (s: string) => [...Buffer.from(s)];
    // ProbeEchoRequest: name = 1 (string), count = 2, tags = 3, attrs = 4 (JSON text), address = 5 (message).
    const bad: [string, number[]][] = [
      ['a string that claims more bytes than are left', [0x0a, 0x40, ...text('Trunc')]],
      ['a string that is not UTF-8', [0x0a, 0x04, 0x41, 0xff, 0xfe, 0x42]],
      ['JSON text that is not UTF-8', [0x0a, 0x01, 0x61, 0x22, 0x02, 0xc3, 0x28]],
      ['a string sent as a varint', [0x08, 0x05]],
      ['a number sent as a string', [0x0a, 0x01, 0x61, 0x12, 0x01, 0x31]],
      ['a group (wire type 3)', [0x0a, 0x01, 0x61, 0x1b]],
      ['a tag cut short', [0x0a, 0x01, 0x61, 0x80]],
      ['field number 0', [0x02, 0x00]],
      // The nested city claims 16 bytes: they exist in the request, but not inside the address.
      [
        'a nested string longer than its message',
        [0x2a, 0x04, 0x0a, 0x10, ...text('ab'), 0x0a, 0x10, ...text('0123456789abcdef')],
      ],
    ];
    for (const [what, bytes] of bad) {
      const a = await send(ECHO.path, [frame(Uint8Array.from(bytes))]);
      t.equal(a.grpcStatus, 3, `${what}: INVALID_ARGUMENT`);
      t.match(a.grpcMessage, /request is not a valid ProbeEchoRequest message/, what);
    }
    const unknownField = Buffer.concat([
      Buffer.from(ECHO.requestSerialize({ name: 'with extras' })),
      Buffer.from([0xf8, 0x06, 0x01]),
    ]);
    const skipped = await send(ECHO.path, [frame(unknownField)]);
    t.equal(skipped.grpcStatus, 0, 'an unknown field number is skipped, as protobuf requires');
    const full = ECHO.requestSerialize({
      name: 'ünïcode ✓',
      count: 7,
      tags: ['a', 'b'],
      attrs: '{"k":"v"}',
      address: { city: 'Zürich', geo: { lat: 47.4, lng: 8.5 } },
      items: [{ sku: 's', qty: 2 }],
    });
    const ok = await send(ECHO.path, [frame(full)]);
    t.equal(ok.grpcStatus, 0, 'every field type, nested messages and UTF-8 text pass');
    t.equal(decode(ok, ECHO).name, 'ünïcode ✓');
  },
);

t.test('a message split across many DATA frames is put back together', async (t) => {
  const bytes = frame(ECHO.requestSerialize({ name: 'split into pieces', tags: ['a', 'b', 'c'] }));
  const pieces = [...bytes].map((b) => Buffer.from([b]));
  const a = await send(ECHO.path, pieces);
  t.equal(a.grpcStatus, 0);
  t.equal(decode(a, ECHO).name, 'split into pieces');
  t.same(decode(a, ECHO).tags, ['a', 'b', 'c']);
});

t.test('gzip and deflate compressed requests are read', async (t) => {
  for (const [encoding, compress] of [
    ['gzip', gzipSync],
    ['deflate', deflateSync],
  ] as const) {
    const a = await send(
      ECHO.path,
      [frame(compress(ECHO.requestSerialize({ name: `packed with ${encoding}` })), true)],
      { 'grpc-encoding': encoding },
    );
    t.equal(a.grpcStatus, 0, encoding);
    t.equal(decode(a, ECHO).name, `packed with ${encoding}`);
  }
});

t.test('an encoding the server cannot read is UNIMPLEMENTED and names the ones it can', async (t) => {
  const a = await send(ECHO.path, [frame(Buffer.from('x'), true)], { 'grpc-encoding': 'br' });
  t.equal(a.status, 200);
  t.equal(a.grpcStatus, 12);
  t.match(a.grpcMessage, /br/, 'the message names the encoding');
});

t.test('size limits: a message announced over --body-limit is RESOURCE_EXHAUSTED before it is read', async (t) => {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(LIMIT + 1, 1);
  // Only the header is sent and the request is left open: the server must answer without waiting.
  const a = await send(ECHO.path, [header], {}, { end: false });
  t.equal(a.grpcStatus, 8);
  t.equal(a.grpcMessage, `Received message larger than max (${LIMIT + 1} vs ${LIMIT})`);
});

t.test('size limits: a small compressed message that inflates past the limit is RESOURCE_EXHAUSTED', async (t) => {
  const bomb = gzipSync(
    ECHO.requestSerialize({ name: 'x'.repeat(100), tags: Array.from({ length: 200 }, () => 'y'.repeat(50)) }),
  );
  t.ok(bomb.length < LIMIT, `compressed ${bomb.length} bytes`);
  const a = await send(ECHO.path, [frame(bomb, true)], { 'grpc-encoding': 'gzip' });
  t.equal(a.grpcStatus, 8);
});

t.test('malformed bodies get a caller-side status with a message saying what is wrong', async (t) => {
  const ping = frame(PING.requestSerialize({}));
  const cases: [string, string, Buffer[], number, RegExp][] = [
    ['no message at all', PING.path, [], 12, /no request message/],
    ['two messages for a unary method', PING.path, [ping, ping], 12, /second request message/],
    ['a body that ends inside a message', PING.path, [ping.subarray(0, 3)], 12, /no request message/],
    [
      'bytes that are not the request message',
      ECHO.path,
      [frame(Buffer.from([0xff, 0xff, 0xff, 0xff]))],
      3,
      /not a valid ProbeEchoRequest message/,
    ],
    // grpc/doc/compression.md: a compressed flag without an encoding is read as identity by grpc-js.
    [
      'a compressed flag without an encoding',
      PING.path,
      [frame(Buffer.from('abc'), true)],
      3,
      /not a valid Empty message/,
    ],
  ];
  for (const [what, path, chunks, status, message] of cases) {
    const a = await send(path, chunks);
    t.equal(a.status, 200, what);
    t.equal(a.grpcStatus, status, what);
    t.match(a.grpcMessage, message, what);
  }
  const after = await send(PING.path, [ping]);
  t.equal(after.grpcStatus, 0, 'the connection still serves calls');
});

t.test('unknown methods are UNIMPLEMENTED; requests that are not gRPC get HTTP errors', async (t) => {
  const unknown = await send('/latchkey.v1.AuthorizerService/NoSuchThing', [frame(Buffer.alloc(0))]);
  t.equal(unknown.grpcStatus, 12);
  t.match(unknown.grpcMessage, /does not implement the method/);
  const notGrpc = await send(PING.path, [Buffer.from('{}')], { 'content-type': 'application/json' });
  t.equal(notGrpc.status, 415);
});

t.test(
  'grpc-timeout: a call that outlives its deadline is DEADLINE_EXCEEDED; a malformed one never runs',
  async (t) => {
    const started = Date.now();
    const late = await send(WAIT.path, [frame(WAIT.requestSerialize({ ms: 1500 }))], { 'grpc-timeout': '100m' });
    t.equal(late.grpcStatus, 4);
    t.ok(Date.now() - started < 1200, `answered after ${Date.now() - started} ms, not after the handler`);
    const inTime = await send(WAIT.path, [frame(WAIT.requestSerialize({ ms: 10 }))], { 'grpc-timeout': '2S' });
    t.equal(inTime.grpcStatus, 0);
    // grpc-js refuses a malformed grpc-timeout with INTERNAL (its own rule; the call never runs).
    const bad = await send(WAIT.path, [frame(WAIT.requestSerialize({ ms: 0 }))], { 'grpc-timeout': 'soon' });
    t.equal(bad.grpcStatus, 13);
    t.match(bad.grpcMessage, /Invalid grpc-timeout value "soon"/);
  },
);

t.test('a request that never finishes arriving is ended after the read timeout, deadline or not', async (t) => {
  const ping = frame(PING.requestSerialize({}));
  const started = Date.now();
  // Half a message, and the request left open: a peer trickling bytes (or gone silent).
  const a = await send(PING.path, [ping.subarray(0, 3)], {}, { end: false });
  const waited = Date.now() - started;
  t.equal(a.grpcStatus, 4);
  t.equal(a.grpcMessage, `request not received within ${READ_TIMEOUT_MS} ms`);
  t.ok(waited >= READ_TIMEOUT_MS - 20 && waited < READ_TIMEOUT_MS + 1000, `ended after ${waited} ms`);
  const slowHandler = await send(WAIT.path, [frame(WAIT.requestSerialize({ ms: READ_TIMEOUT_MS + 200 }))]);
  t.equal(slowHandler.grpcStatus, 0, 'the bound is on receiving the request, not on the handler');
});

t.test('a status message outside printable ASCII is percent-encoded UTF-8, and grpc-js reads it back', async (t) => {
  const a = await send(FAIL.path, [frame(FAIL.requestSerialize({ code: 'unicode' }))]);
  t.equal(a.grpcStatus, 3);
  t.match(a.trailers['grpc-message'] ?? a.headers['grpc-message'], /^na%C3%AFve/, 'percent-encoded on the wire');
  t.equal(a.grpcMessage, 'naïve 100% ✓ fails');
  const client = grpcClient(`127.0.0.1:${server.port}`, ops);
  t.teardown(() => client.close());
  await t.rejects(client.call('probe_fail', { code: 'unicode' }), { message: 'naïve 100% ✓ fails' });
});

t.test('a call cancelled by the client does not disturb the server', async (t) => {
  await new Promise<void>((resolve) => {
    const req = session.request({
      ':method': 'POST',
      ':path': WAIT.path,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    req.on('error', () => {});
    req.end(frame(WAIT.requestSerialize({ ms: 200 })));
    setTimeout(() => {
      req.close(constants.NGHTTP2_CANCEL);
      resolve();
    }, 50);
  });
  await new Promise((r) => setTimeout(r, 300)); // the handler finishes with nowhere to answer
  const a = await send(PING.path, [frame(PING.requestSerialize({}))]);
  t.equal(a.grpcStatus, 0);
});

t.test('server reflection over the raw protocol: a stream of requests gets a stream of answers', async (t) => {
  // grpc.reflection.v1.ServerReflectionRequest { list_services = 7: "" } is bytes 3a 00.
  const listServices = frame(Buffer.from([0x3a, 0x00]));
  const a = await send('/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', [listServices, listServices]);
  t.equal(a.grpcStatus, 0);
  let count = 0;
  for (let at = 0; at < a.body.length; at += 5 + a.body.readUInt32BE(at + 1)) count++;
  t.equal(count, 2, 'one answer per request');
  t.match(a.body.toString('latin1'), /latchkey\.v1\.AuthorizerService/);
});
