/** The codec between kernel JSON values and proto-loader objects. */
import t from 'tap';
import { ServiceError } from '../../../core/errors.js';
import { compileOperation } from '../../../core/operations.js';
import { buildProtoModel } from '../../../transports/grpc/proto-model.js';
import {
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  fromWire,
  toWire,
} from '../../../transports/grpc/codec.js';
import { probePlugin } from './probe-plugin.js';

const ops = (probePlugin.operations as Parameters<typeof compileOperation>[0][]).map((d) =>
  compileOperation(d, 'grpc-probe'),
);
const model = buildProtoModel(ops);
const echo = model.method('probe_echo')!;
const list = model.method('probe_list')!;

t.test('a value survives encode and decode', async (t) => {
  const input = {
    name: 'n',
    count: 7,
    tags: ['a'],
    attrs: { k: [1, { v: null }] },
    address: { city: 'c', geo: { lat: 1.5, lng: 2 } },
    items: [{ sku: 's', qty: 2 }],
  };
  const wire = encodeRequest(model, echo, input);
  t.equal(wire.attrs, JSON.stringify(input.attrs), 'Map fields travel as JSON text');
  t.strictSame(decodeRequest(model, echo, wire), input);
});

t.test('absent non-optional scalars are their proto3 zero values; absent optional fields stay absent', async (t) => {
  t.strictSame(fromWire(model, 'ProbePong', {}), { pong: false, transport: '', ip: '' });
  t.strictSame(
    decodeRequest(model, echo, { name: 'n', _count: 'count' }),
    { name: 'n' },
    'virtual oneof fields are dropped',
  );
});

t.test('list results are wrapped in items', async (t) => {
  const value = [{ id: 'a', n: 1, meta: { x: 1 } }];
  const wire = encodeResponse(model, list, value);
  t.strictSame(wire, { items: [{ id: 'a', n: 1, meta: '{"x":1}' }] });
  t.strictSame(decodeResponse(model, list, wire), value);
});

t.test('bad JSON text is an invalid_argument naming the field path', async (t) => {
  t.throws(
    () => decodeRequest(model, echo, { name: 'n', attrs: '{' }),
    new ServiceError('invalid_argument', 'invalid attrs: must be JSON text'),
  );
  t.throws(
    () => fromWire(model, 'ProbeListResponse', { items: [{ id: 'a', n: 1, meta: 'nope' }] }),
    /invalid items\.0\.meta: must be JSON text/,
  );
  t.strictSame(toWire(model, 'ProbeEchoRequest', null), {});
});

t.test('JSON text follows the REST body rules: no __proto__ or constructor.prototype keys', async (t) => {
  t.throws(
    () => decodeRequest(model, echo, { name: 'n', attrs: '{"__proto__":{"x":1}}' }),
    new ServiceError('invalid_argument', 'invalid attrs: a "__proto__" key is not allowed'),
  );
  t.throws(
    () => decodeRequest(model, echo, { name: 'n', attrs: '{"a":{"constructor":{"prototype":{"y":1}}}}' }),
    /invalid attrs: a "constructor.prototype" key is not allowed/,
  );
  t.strictSame(
    decodeRequest(model, echo, { name: 'n', attrs: '{"constructor":"fine","proto":1}' }),
    { name: 'n', attrs: { constructor: 'fine', proto: 1 } },
    'the words alone are fine',
  );
});
