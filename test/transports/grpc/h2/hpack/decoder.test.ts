/** HPACK decoding: RFC 7541 Appendix C's request sequences, table eviction, and malformed blocks. */
import t from 'tap';
import { HpackDecoder, HpackError } from '../../../../../transports/grpc/h2/hpack/decoder.js';
import { encodeHeaders } from '../../../../../transports/grpc/h2/hpack/encoder.js';

const hex = (h: string) => Buffer.from(h.replace(/\s/g, ''), 'hex');
const pairs = (fields: string[]) => fields.flatMap((_, i) => (i % 2 === 0 ? [[fields[i], fields[i + 1]]] : []));

const first = [
  [':method', 'GET'],
  [':scheme', 'http'],
  [':path', '/'],
  [':authority', 'www.example.com'],
];
const second = [...first, ['cache-control', 'no-cache']];
const third = [
  [':method', 'GET'],
  [':scheme', 'https'],
  [':path', '/index.html'],
  [':authority', 'www.example.com'],
  ['custom-key', 'custom-value'],
];

t.test('C.3: three requests without Huffman share one dynamic table', async (t) => {
  const d = new HpackDecoder();
  t.strictSame(pairs(d.decode(hex('828684410f7777772e6578616d706c652e636f6d'), 1e6).fields), first);
  // `be` is dynamic index 62: the :authority entry added by the first block.
  t.strictSame(pairs(d.decode(hex('828684be58086e6f2d6361636865'), 1e6).fields), second);
  // `bf` (63) is that same entry, one older now that cache-control was added.
  t.strictSame(pairs(d.decode(hex('828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565'), 1e6).fields), third);
});

t.test('C.4: the same requests with Huffman-coded literals', async (t) => {
  const d = new HpackDecoder();
  t.strictSame(pairs(d.decode(hex('828684418cf1e3c2e5f23a6ba0ab90f4ff'), 1e6).fields), first);
  t.strictSame(pairs(d.decode(hex('828684be5886a8eb10649cbf'), 1e6).fields), second);
  t.strictSame(pairs(d.decode(hex('828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf'), 1e6).fields), third);
});

t.test('§4.4: entries are evicted oldest first when the table is full', async (t) => {
  const d = new HpackDecoder();
  // Size update to 100 (5-bit prefix: 31, then 69), then two 55-byte entries: only the newer fits.
  const block = hex(
    '3f45 400a637573746f6d2d6b65790d637573746f6d2d686561646572 400a637573746f6d2d6b65790d637573746f6d2d686561646573',
  );
  t.strictSame(pairs(d.decode(block, 1e6).fields), [
    ['custom-key', 'custom-header'],
    ['custom-key', 'custom-heades'],
  ]);
  t.strictSame(pairs(d.decode(hex('be'), 1e6).fields), [['custom-key', 'custom-heades']]);
  t.throws(() => d.decode(hex('bf'), 1e6), new HpackError('index 63 is not in the table'));
  // An entry larger than the whole table empties it and is not added (§4.4).
  // custom-key (10) and 70 bytes of 'a' (length 0x46): 112 bytes with the overhead.
  d.decode(hex(`400a637573746f6d2d6b657946${'61'.repeat(70)}`), 1e6);
  t.throws(() => d.decode(hex('be'), 1e6), /not in the table/);
});

t.test('malformed blocks are refused', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['80', 'index 0', /index 0/],
    ['ff00', 'an index past both tables', /not in the table/],
    ['ff', 'a truncated integer', /truncated integer/],
    ['4005616263', 'a string shorter than its length', /truncated string/],
    ['82 3f45', 'a size update after a field', /size update after/],
    ['3fe21f', 'a size update above the advertised 4096', /above the advertised/],
    ['0081ff', 'a Huffman name that is EOS padding only, 8 bits', /padding/],
    ['ffffffffffff0f', 'an integer past 2^30', /too large/],
    // Continuation bytes adding nothing: the shift grew until the value was NaN, which passed
    // every bound, and a table size of NaN turned eviction off (a review finding).
    [`3f${'80'.repeat(150)}00`, 'a size update padded with 150 empty continuation bytes', /too large/],
    [`7f${'80'.repeat(6)}00`, 'a literal name index padded the same way', /too large/],
  ];
  for (const [block, what, error] of cases) t.throws(() => new HpackDecoder().decode(hex(block), 1e6), error, what);
});

t.test('the decoded list is measured as §4.1 sizes; an oversized one is still decoded through', async (t) => {
  const d = new HpackDecoder();
  const out = d.decode(hex('400a637573746f6d2d6b65790d637573746f6d2d686561646572 82'), 60);
  t.equal(out.oversized, true, '55 + 42 bytes > 60');
  t.strictSame(pairs(out.fields), [['custom-key', 'custom-header']], 'what fitted');
  // The entry was still added, so the table stays in step with the peer's encoder.
  t.strictSame(pairs(d.decode(hex('be'), 1e6).fields), [['custom-key', 'custom-header']]);
});

t.test('what the encoder writes, the decoder reads', async (t) => {
  const headers = {
    ':status': 200,
    'content-type': 'application/grpc',
    'set-cookie': ['a=1', 'b=2'],
    'x-custom': 'v'.repeat(300),
    'grpc-status': '0',
  };
  const got = pairs(new HpackDecoder().decode(encodeHeaders(headers), 1e6).fields);
  t.strictSame(got, [
    [':status', '200'],
    ['content-type', 'application/grpc'],
    ['set-cookie', 'a=1'],
    ['set-cookie', 'b=2'],
    ['x-custom', 'v'.repeat(300)],
    ['grpc-status', '0'],
  ]);
  t.equal(encodeHeaders({ ':status': 200 }).toString('hex'), '88', ':status 200 is static entry 8');
});
