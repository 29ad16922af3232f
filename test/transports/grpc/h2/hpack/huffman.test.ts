/** HPACK's Huffman code: the rebuilt codes match RFC 7541 Appendix B, and decoding follows §5.2. */
import t from 'tap';
import { EOS, huffmanCodes, huffmanDecode } from '../../../../../transports/grpc/h2/hpack/huffman.js';
import { huffmanEncode } from './huffman-encode.js';

t.test('codes rebuilt from the lengths are Appendix B codes', async (t) => {
  const codes = huffmanCodes();
  // [symbol, code as hex aligned to LSB, length], read off Appendix B across every length class.
  const appendixB: [number, number, number][] = [
    [0, 0x1ff8, 13],
    [1, 0x7fffd8, 23],
    [9, 0xffffea, 24],
    [10, 0x3ffffffc, 30],
    [22, 0x3ffffffe, 30],
    [32, 0x14, 6],
    [48, 0x0, 5],
    [58, 0x5c, 7],
    [60, 0x7ffc, 15],
    [88, 0xfc, 8],
    [92, 0x7fff0, 19],
    [97, 0x3, 5],
    [116, 0x9, 5],
    [122, 0x7b, 7],
    [126, 0x1ffd, 13],
    [127, 0xffffffc, 28],
    [128, 0xfffe6, 20],
    [153, 0x1fffdc, 21],
    [192, 0x3ffffe0, 26],
    [199, 0x1ffffec, 25],
    [203, 0x7ffffde, 27],
    [220, 0xffffffd, 28],
    [249, 0xffffffe, 28],
    [254, 0x7fffff0, 27],
    [255, 0x3ffffee, 26],
    [EOS, 0x3fffffff, 30],
  ];
  for (const [symbol, code, length] of appendixB) t.strictSame(codes[symbol], { code, length }, `symbol ${symbol}`);
  // A complete prefix code: the Kraft sum of 2^-length over all 257 symbols is exactly 1.
  t.equal(
    codes.reduce((sum, c) => sum + 2 ** -c.length, 0),
    1,
  );
});

t.test('the RFC examples decode (Appendix C.4.1 and C.6.1)', async (t) => {
  const hex = (h: string) => Buffer.from(h, 'hex');
  const www = hex('f1e3c2e5f23a6ba0ab90f4ff');
  t.equal(huffmanDecode(www, 0, www.length), 'www.example.com');
  const noCache = hex('a8eb10649cbf');
  t.equal(huffmanDecode(noCache, 0, noCache.length), 'no-cache');
});

t.test('every byte value survives a round trip', async (t) => {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const encoded = huffmanEncode(all);
  t.equal(huffmanDecode(encoded, 0, encoded.length), all.toString('latin1'));
  for (let i = 0; i < 256; i++) {
    const one = huffmanEncode(Buffer.from([i, i, i]));
    t.equal(huffmanDecode(one, 0, one.length), String.fromCharCode(i, i, i), `byte ${i}`);
  }
  t.equal(huffmanDecode(Buffer.alloc(0), 0, 0), '', 'empty');
});

t.test('§5.2: EOS in the data and bad padding are refused', async (t) => {
  // EOS is 30 ones; four bytes of ones hold it.
  t.throws(() => huffmanDecode(Buffer.from([0xff, 0xff, 0xff, 0xff]), 0, 4), /EOS/);
  // 'a' is 00011 (5 bits); padding 000 is not the EOS prefix.
  t.throws(() => huffmanDecode(Buffer.from([0b00011000]), 0, 1), /padding/);
  // '0' (00000) then a full byte of ones: 11 ones of padding, more than 7.
  t.throws(() => huffmanDecode(Buffer.from([0b00000111, 0xff]), 0, 2), /padding/);
  t.equal(huffmanDecode(Buffer.from([0b00011111]), 0, 1), 'a', 'three 1s of padding are fine');
});
