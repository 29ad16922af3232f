/** Test helper: a Huffman encoder (RFC 7541 §5.2) from the rebuilt codes, to feed the decoder. */
import { huffmanCodes } from '../../../../../transports/grpc/h2/hpack/huffman.js';

const CODES = huffmanCodes();

export function huffmanEncode(bytes: Uint8Array): Buffer {
  const bits: number[] = [];
  for (const b of bytes) {
    const { code, length } = CODES[b]!;
    for (let i = length - 1; i >= 0; i--) bits.push(Math.floor(code / 2 ** i) % 2);
  }
  while (bits.length % 8 !== 0) bits.push(1); // padding: the most significant bits of EOS
  const out = Buffer.alloc(bits.length / 8);
  bits.forEach((bit, i) => {
    if (bit) out[i >> 3]! |= 0x80 >> (i & 7);
  });
  return out;
}
