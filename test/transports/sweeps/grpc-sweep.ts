/**
 * Every gRPC method of the default distribution fed request messages that are wrong in every way
 * the protobuf encoding and the operation's schema can tell (brief, rule 3): each field in turn
 * sent with the wrong wire type, as text that is not UTF-8, empty, 70k long or holding NUL, as a
 * number at the ends of its range, as JSON text that is not JSON or nests too deep, as a list of
 * 2,000 items, as a nested message with one of its own fields wrong; and whole messages cut
 * short or carrying unknown fields. REST and GraphQL get the same sweep in rest-graphql-sweep.ts;
 * the framing itself (lengths, compression, flags) is test/transports/grpc/wire.test.ts's.
 *
 * Each answer is checked to carry a grpc-status that is neither UNKNOWN nor INTERNAL nor
 * DATA_LOSS (a 5xx's counterpart), with a message when it is an error, and every refused call
 * that may write is checked to have left the database as it found it. The messages are encoded
 * by hand from the same proto model the server is built from (proto-model.ts), so a method added
 * later is swept too, and so bytes a generated client would refuse to produce can be sent. It
 * runs on SQLite (grpc-sqlite.test.ts); on-database.ts says why the other databases get REST.
 */
import { connect, type ClientHttp2Session } from 'node:http2';
import type { Test } from 'tap';
import type { CompiledOperation } from '../../../core/operations.js';
import {
  PROTO_PACKAGE,
  buildProtoModel,
  type ProtoField,
  type ProtoMethod,
  type ProtoModel,
} from '../../../transports/grpc/proto-model.js';
import type { WriteWatch } from '../../helpers/database-text.js';
import type { DbName } from '../../helpers/databases.js';
import { TEST_ADMIN_SECRET, type TestServer } from '../../helpers/server.js';
import { onDatabase } from './on-database.js';

// Wire types (protobuf encoding guide, "Message Structure").
const VARINT = 0;
const I64 = 1;
const LEN = 2;

function varint(n: bigint): number[] {
  let v = BigInt.asUintN(64, n);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

const tag = (field: number, wire: number) => varint(BigInt((field << 3) | wire));
const lenField = (field: number, bytes: Uint8Array | number[]) => [
  ...tag(field, LEN),
  ...varint(BigInt(bytes.length)),
  ...bytes,
];
const textField = (field: number, s: string) => lenField(field, Buffer.from(s, 'utf8'));
const intField = (field: number, n: bigint) => [...tag(field, VARINT), ...varint(n)];
function doubleField(field: number, x: number): number[] {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return [...tag(field, I64), ...b];
}

/** A value of the field's type, as the field's bytes (not always one the operation accepts). */
function sampleField(model: ProtoModel, f: ProtoField, depth: number): number[] {
  const { type } = f;
  if (type.kind === 'json') return textField(f.number, type.what === 'Map' ? '{}' : '"x"');
  if (type.kind === 'message') return lenField(f.number, sampleMessage(model, type.message, depth + 1));
  switch (type.scalar) {
    case 'string':
      return textField(f.number, 'x');
    case 'int64':
      return intField(f.number, 1n);
    case 'double':
      return doubleField(f.number, 1);
    case 'bool':
      return intField(f.number, 1n);
  }
}

/** Every field of the message with a sample value; `clear_<list>` flags left unset (they would empty the list). */
function sampleMessage(model: ProtoModel, name: string, depth = 0): number[] {
  if (depth > 3) return [];
  const out: number[] = [];
  for (const f of model.message(name).fields) if (f.clears === undefined) out.push(...sampleField(model, f, depth));
  return out;
}

const DEEP_JSON = '['.repeat(5_000) + ']'.repeat(5_000);

/** Bytes tried in place of the field's sample (one field of the message at a time). */
function fieldVariants(model: ProtoModel, f: ProtoField, depth: number): [string, number[]][] {
  const n = f.number;
  const wrongWire: [string, number[]] =
    f.type.kind === 'scalar' && f.type.scalar !== 'string'
      ? ['sent length-delimited', textField(n, 'x')]
      : ['sent as a varint', intField(n, 5n)];
  const out: [string, number[]][] = [
    wrongWire,
    ['sent twice', [...sampleField(model, f, depth), ...sampleField(model, f, depth)]],
  ];
  // A fixed64 is a double's own wire type: for a double it would be the sample again.
  if (!(f.type.kind === 'scalar' && f.type.scalar === 'double')) out.push(['sent as a fixed64', doubleField(n, 1)]);
  if (f.repeated) out.push(['2,000 items', Array.from({ length: 2_000 }, () => sampleField(model, f, depth)).flat()]);
  const { type } = f;
  if (type.kind === 'json') {
    for (const text of [
      'not json',
      '{"a":',
      DEEP_JSON,
      '{"__proto__":{"polluted":1}}',
      'null',
      '1e999',
      '[1,"a",null]',
      '"x"',
      '{}',
      'a'.repeat(70_000),
    ])
      out.push([`JSON text ${JSON.stringify(text.slice(0, 20))}`, textField(n, text)]);
  } else if (type.kind === 'message') {
    out.push(['an empty message', lenField(n, [])]);
    if (depth < 2) {
      for (const inner of model.message(type.message).fields) {
        for (const [what, bytes] of fieldVariants(model, inner, depth + 1))
          out.push([
            `${inner.name} ${what}`,
            lenField(n, [...sampleMessage(model, type.message, depth + 1), ...bytes]),
          ]);
      }
    }
  } else if (type.scalar === 'string') {
    out.push(
      ['empty', textField(n, '')],
      ['70k long', textField(n, 'a'.repeat(70_000))],
      ['NUL', textField(n, '\u0000')],
      ['not UTF-8', lenField(n, [0x41, 0xff, 0xfe])],
      ['a lone surrogate (CESU-8)', lenField(n, [0xed, 0xa0, 0x80])],
    );
  } else if (type.scalar === 'int64') {
    for (const v of [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n])
      out.push([`the number ${v}`, intField(n, v)]);
    out.push(['an 11-byte varint', [...tag(n, VARINT), ...Array(10).fill(0xff), 0x01]]);
  } else if (type.scalar === 'double') {
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, -1e308, -0])
      out.push([`the number ${v}`, doubleField(n, v)]);
  } else {
    out.push(['the varint 2', intField(n, 2n)], ['a 10-byte varint', intField(n, -1n)]);
  }
  return out;
}

/** The server of the database being swept and a connection to it (one at a time, see the end of this file). */
let server: TestServer;
let session: ClientHttp2Session;
let ops: CompiledOperation[] = [];
let model: ProtoModel;
let watch: WriteWatch;

interface Outcome {
  status: number | undefined;
  problem?: string;
}

/** Statuses a server reports for its own failures (gRPC status codes), never for a caller's input. */
const SERVER_FAULTS = new Set([2, 13, 15]);

function call(method: ProtoMethod, message: number[], metadata: Record<string, string>): Promise<Outcome> {
  const body = Buffer.alloc(5 + message.length);
  body.writeUInt32BE(message.length, 1);
  body.set(message, 5);
  return new Promise((resolve, reject) => {
    const req = session.request({
      ':method': 'POST',
      ':path': `/${PROTO_PACKAGE}.${method.service}/${method.name}`,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...metadata,
    });
    let headers: Record<string, unknown> = {};
    let trailers: Record<string, unknown> = {};
    req.on('response', (h) => (headers = h));
    req.on('trailers', (h) => (trailers = h));
    req.on('data', () => {});
    req.on('error', reject);
    req.on('close', () => {
      const source = trailers['grpc-status'] !== undefined ? trailers : headers;
      const status = source['grpc-status'] === undefined ? undefined : Number(source['grpc-status']);
      const message = source['grpc-message'];
      if (headers[':status'] !== 200) resolve({ status, problem: `HTTP ${String(headers[':status'])}` });
      else if (status === undefined) resolve({ status, problem: 'no grpc-status' });
      else if (SERVER_FAULTS.has(status))
        resolve({ status, problem: `a server fault: ${String(message).slice(0, 200)}` });
      else if (status !== 0 && (typeof message !== 'string' || message === ''))
        resolve({ status, problem: 'an error without a message' });
      else resolve({ status });
    });
    req.end(body);
  });
}

const CALLERS: readonly [string, Record<string, string>][] = [
  ['no credentials', {}],
  ['the admin secret', { 'x-service-admin-secret': TEST_ADMIN_SECRET }],
];

async function check(
  t: Test,
  op: CompiledOperation,
  label: string,
  run: () => Promise<Outcome>,
  counts: Record<string, number>,
) {
  const writes = op.def.kind === 'mutation' || op.def.changesState === true;
  const { outcome, changed } = await watch.run(writes, run, (o) => o.status !== 0);
  counts[outcome.status === 0 ? 'accepted' : 'refused']++;
  if (outcome.problem !== undefined) t.fail(`${label}: ${outcome.problem}`);
  else if (changed) t.fail(`${label}: refused (${outcome.status}) but the database changed`);
}

async function sweep(t: Test) {
  const counts = { accepted: 0, refused: 0 };
  let failuresBefore = 0;
  let swept = 0;
  for (const op of ops) {
    const method = model.method(op.def.name);
    if (!method) continue;
    swept++;
    const request = model.message(method.request);
    const base = sampleMessage(model, method.request);
    const cases: [string, number[]][] = [
      ['an unknown field', [...base, ...intField(999, 1n)]],
      ['an unknown field of a reserved wire type (group)', [...base, ...tag(998, 3)]],
      ['a message cut short', base.length > 0 ? base.slice(0, -1) : [0x0a]],
      ['a length past the end', [...tag(1, LEN), ...varint(1_000n), 0x61]],
    ];
    for (const f of request.fields)
      for (const [what, bytes] of fieldVariants(model, f, 0)) cases.push([`${f.name} ${what}`, [...base, ...bytes]]);
    for (const [who, metadata] of CALLERS) {
      for (const [what, message] of cases)
        await check(t, op, `${method.name} (${who}), ${what}`, () => call(method, message, metadata), counts);
    }
    t.equal(
      t.counts.fail - failuresBefore,
      0,
      `${method.name}: every bad message answered with a caller-side status, nothing written`,
    );
    failuresBefore = t.counts.fail;
  }
  t.ok(swept >= 40, `the default distribution's methods were swept (${swept})`);
  t.ok(counts.refused > 2_000, `most calls refused (${counts.refused} refused, ${counts.accepted} accepted)`);
}

/** The sweep on one database (one test file each: on-database.ts says why). */
export function sweepGrpc(db: DbName): Promise<void> {
  return onDatabase(
    db,
    'every gRPC method refuses bad request messages with a caller-side status and writes nothing',
    async (t, started, watching) => {
      server = started;
      watch = watching;
      session = connect(`http://${server.grpcAddress}`);
      session.on('error', () => {});
      ops = [...server.kernel.operations.values()];
      model = buildProtoModel(ops);
      try {
        await sweep(t);
      } finally {
        session.close();
      }
    },
  );
}
