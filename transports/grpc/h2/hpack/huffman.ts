/**
 * HPACK's Huffman code (RFC 7541 §5.2 and Appendix B), decoding only: Latchkey's encoder sends
 * literals raw, which every decoder must accept. The code is canonical (codes of one length are
 * consecutive and ordered by symbol, shorter codes first), so the table is kept as each symbol's
 * code length and the codes are rebuilt from it; test/transports/grpc/h2/hpack checks the rebuilt
 * codes against Appendix B and the decoder against the RFC's examples and node:http2's encoder.
 */

/** Code length in bits of symbols 0 to 255 and of EOS (256), from Appendix B. */
const LENGTHS: readonly number[] = [
  // 0-31: control characters
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28,
  28, 28, 28,
  // 32-63: ' ' to '?'
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  // 64-95: '@' to '_'
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  // 96-127: '`' to DEL
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  // 128-159
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22,
  23, 23, 24,
  // 160-191
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23,
  22, 22, 23,
  // 192-223
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28,
  27, 27, 27,
  // 224-255
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27,
  27, 27, 26,
  // EOS
  30,
];

export const EOS = 256;

/** Each symbol's code (right-aligned in `length` bits), rebuilt canonically from LENGTHS. */
export function huffmanCodes(): { code: number; length: number }[] {
  const order = LENGTHS.map((length, symbol) => ({ symbol, length })).sort(
    (a, b) => a.length - b.length || a.symbol - b.symbol,
  );
  const codes: { code: number; length: number }[] = new Array(LENGTHS.length);
  let code = 0;
  let previous = order[0]!.length;
  for (const { symbol, length } of order) {
    code *= 2 ** (length - previous); // multiply, not shift: codes reach 30 bits
    previous = length;
    codes[symbol] = { code, length };
    code++;
  }
  return codes;
}

/**
 * The decoding tree as two arrays: node n's children are `zero[n]` and `one[n]`; a child below 0
 * is a leaf holding symbol `-child - 1`; 0 means no child (the root is node 0 and is never a child).
 */
function buildTree(): { zero: Int32Array; one: Int32Array } {
  const size = 2 * LENGTHS.length;
  const zero = new Int32Array(size);
  const one = new Int32Array(size);
  let next = 1;
  huffmanCodes().forEach(({ code, length }, symbol) => {
    let node = 0;
    for (let bit = length - 1; bit >= 0; bit--) {
      const branch = Math.floor(code / 2 ** bit) % 2 === 1 ? one : zero;
      if (bit === 0) branch[node] = -symbol - 1;
      else {
        if (branch[node] === 0) branch[node] = next++;
        node = branch[node]!;
      }
    }
  });
  return { zero, one };
}

const TREE = buildTree();

export class HuffmanError extends Error {}

/**
 * Decodes `bytes[start, end)` to a latin1 string. Refuses what §5.2 forbids: the EOS symbol in
 * the data, and padding longer than 7 bits or not made of the most significant bits of EOS (1s).
 */
export function huffmanDecode(bytes: Uint8Array, start: number, end: number): string {
  const { zero, one } = TREE;
  // The shortest code is 5 bits: no more symbols than that fit.
  const out = Buffer.allocUnsafe(Math.ceil(((end - start) * 8) / 5));
  let length = 0;
  let node = 0;
  let pendingBits = 0; // bits read since the last complete symbol
  let pendingAllOnes = true;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    for (let bit = 7; bit >= 0; bit--) {
      const isOne = (byte >> bit) & 1;
      const child = isOne ? one[node]! : zero[node]!;
      if (child < 0) {
        const symbol = -child - 1;
        if (symbol === EOS) throw new HuffmanError('Huffman data contains EOS');
        out[length++] = symbol;
        node = 0;
        pendingBits = 0;
        pendingAllOnes = true;
      } else {
        node = child;
        pendingBits++;
        if (!isOne) pendingAllOnes = false;
      }
    }
  }
  if (pendingBits > 7 || !pendingAllOnes) throw new HuffmanError('invalid Huffman padding');
  return out.toString('latin1', 0, length);
}
