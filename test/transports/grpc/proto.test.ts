/** buildProto: the proto3 text the gRPC transport serves, derived from operation schemas. */
import t from 'tap';
import { compileOperation, defineOperation, type CompiledOperation } from '../../../core/operations.js';
import { InputObject, MessageResponse, OutputObject, Str, Type } from '../../../core/schema.js';
import { adminOperations } from '../../../plugins/admin/operations.js';
import { buildProto } from '../../../transports/grpc/proto.js';
import { probePlugin } from './probe-plugin.js';

const probeOps = (probePlugin.operations as Parameters<typeof compileOperation>[0][]).map((d) =>
  compileOperation(d, 'grpc-probe'),
);
const adminOps = adminOperations.map((d) => compileOperation(d, 'admin'));
const ops: CompiledOperation[] = [...probeOps, ...adminOps];
const proto = buildProto(ops);

const op = (def: Parameters<typeof defineOperation>[0]) => compileOperation(defineOperation(def), 'test');

t.test('is deterministic whatever the order of the table', async (t) => {
  t.equal(buildProto([...ops].reverse()), proto);
  t.match(proto, /^syntax = "proto3";$/m);
  t.match(proto, /^package latchkey\.v1;$/m);
});

t.test('public and admin operations go to their own services', async (t) => {
  const publicService = /service AuthorizerService \{([\s\S]*?)\n\}/.exec(proto)?.[1] ?? '';
  const adminService = /service AuthorizerAdminService \{([\s\S]*?)\n\}/.exec(proto)?.[1] ?? '';
  t.match(publicService, 'rpc ProbePing(Empty) returns (ProbePong);');
  t.match(publicService, 'rpc ProbeEcho(ProbeEchoRequest) returns (ProbeEcho);');
  t.notMatch(publicService, /AdminLogin/);
  t.match(adminService, 'rpc AdminLogin(AdminLoginRequest) returns (Response);');
  t.match(adminService, 'rpc AdminMeta(Empty) returns (AdminMeta);');
  t.notMatch(adminService, /Probe/);
});

t.test('fields: order, optional, repeated, int64, JSON text, nested derived names', async (t) => {
  t.match(
    proto,
    [
      'message ProbeEchoRequest {',
      '  string name = 1;',
      '  optional int64 count = 2;',
      '  repeated string tags = 3;',
      '  optional string attrs = 4; // JSON text (Map)',
      '  optional ProbeEchoRequestAddress address = 5;',
      '  repeated ProbeEchoRequestItems items = 6;',
      '}',
    ].join('\n'),
  );
  t.match(
    proto,
    ['message ProbeEchoRequestAddress {', '  string city = 1;', '  ProbeEchoRequestAddressGeo geo = 2;', '}'].join(
      '\n',
    ),
  );
  t.match(proto, ['message ProbeEchoRequestAddressGeo {', '  double lat = 1;', '  double lng = 2;', '}'].join('\n'));
  t.match(proto, ['message ProbeEchoRequestItems {', '  string sku = 1;', '  int64 qty = 2;', '}'].join('\n'));
  t.match(
    proto,
    ['message ProbeFailRequest {', '  string code = 1;', '}'].join('\n'),
    'a union of string literals is a string',
  );
  t.match(proto, 'message Empty {}');
});

t.test('a list result gets a <Method>Response wrapper with items', async (t) => {
  t.match(proto, 'rpc ProbeList(Empty) returns (ProbeListResponse);');
  t.match(proto, ['message ProbeListResponse {', '  repeated ProbeItem items = 1;', '}'].join('\n'));
});

t.test('operations with grpc: false are left out', async (t) => {
  t.notMatch(proto, /ProbeHidden/);
});

t.test('values proto3 cannot type are JSON text, documented in the file', async (t) => {
  const p = buildProto([
    op({
      name: 'shapes',
      kind: 'query',
      access: 'public',
      description: 'Odd shapes.',
      output: OutputObject('Shapes', {
        grid: Type.Array(Type.Array(Type.Integer())),
        anything: Type.Unknown(),
        either: Type.Union([Type.String(), Type.Integer()]),
        maybe: Type.Union([Type.String(), Type.Null()]),
        labels: Type.Record(Type.String(), Type.String()),
      }),
      handler: async () => ({ grid: [], anything: null, either: 'x', maybe: null, labels: {} }),
    }),
  ]);
  t.match(p, '  string grid = 1; // JSON text (any JSON value)');
  t.match(p, '  string anything = 2; // JSON text (any JSON value)');
  t.match(p, '  string either = 3; // JSON text (any JSON value)');
  t.match(p, '  string maybe = 4;\n', 'a nullable string is a string');
  t.match(p, '  string labels = 5; // JSON text (Map)');
  t.match(p, /holding JSON text/);
});

t.test('a name used by two different schemas is refused with both named', async (t) => {
  const a = op({
    name: 'a',
    kind: 'query',
    access: 'public',
    description: '',
    output: OutputObject('Thing', { x: Type.String() }),
    handler: async () => ({ x: '' }),
  });
  const b = op({
    name: 'b',
    kind: 'query',
    access: 'public',
    description: '',
    output: OutputObject('Thing', { x: Type.Boolean() }),
    handler: async () => ({ x: true }),
  });
  t.throws(() => buildProto([a, b]), /two different schemas are both named "Thing"/);
  const same = op({
    name: 'c',
    kind: 'query',
    access: 'public',
    description: '',
    output: MessageResponse,
    handler: async () => ({ message: '' }),
  });
  t.doesNotThrow(
    () => buildProto([same, { ...same, def: { ...same.def, name: 'd' }, grpcMethod: 'D' }]),
    'one schema reused is one message',
  );
});

t.test('two operations on one method, and Empty with fields, are refused', async (t) => {
  const x = op({
    name: 'foo_bar',
    kind: 'query',
    access: 'public',
    description: '',
    output: MessageResponse,
    handler: async () => ({ message: '' }),
  });
  const y = op({
    name: 'fooBar',
    kind: 'query',
    access: 'public',
    description: '',
    output: MessageResponse,
    handler: async () => ({ message: '' }),
  });
  t.throws(() => buildProto([x, y]), /both map to gRPC method AuthorizerService\.FooBar/);
  const e = op({
    name: 'e',
    kind: 'mutation',
    access: 'public',
    description: '',
    input: InputObject('Empty', { a: Str() }),
    output: MessageResponse,
    handler: async () => ({ message: '' }),
  });
  t.throws(() => buildProto([e, x]), /reserved/);
});

t.test('descriptions become comments and deprecated operations are marked', async (t) => {
  const p = buildProto([
    op({
      name: 'old',
      kind: 'mutation',
      access: 'public',
      deprecated: true,
      description: 'Line one.\nLine two.',
      input: InputObject('OldRequest', { a: Type.String({ description: 'The a.' }) }),
      output: MessageResponse,
      handler: async () => ({ message: '' }),
    }),
  ]);
  t.match(
    p,
    '  // Line one.\n  // Line two. (operation old)\n  rpc Old(OldRequest) returns (Response) {\n    option deprecated = true;\n  }',
  );
  t.match(p, '  // The a.\n  string a = 1;');
});
