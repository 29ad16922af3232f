/**
 * HPACK decoding (RFC 7541): one decoder per connection, since the dynamic table is shared by
 * every header block the peer sends on it, in order. Any fault is a COMPRESSION_ERROR for the
 * whole connection (RFC 9113 §4.3): after one the table can no longer be trusted.
 *
 * Names and values are read as latin1, byte for byte, so an entry's size (§4.1: name octets +
 * value octets + 32) is its string lengths + 32.
 */
import { huffmanDecode, HuffmanError } from './huffman.js';
import { STATIC_COUNT, STATIC_TABLE } from './static-table.js';

export class HpackError extends Error {}

/** Integers above this are refused (§5.1 lets them grow without bound; nothing here needs more). */
const MAX_INTEGER = 2 ** 30;
const ENTRY_OVERHEAD = 32;

export class HpackDecoder {
  /** Newest first: dynamic index 62 is entries[0] (§2.3.3). */
  private entries: [string, string][] = [];
  private size = 0;
  private maxSize: number;
  private pos = 0;
  private block: Uint8Array = new Uint8Array(0);

  /** `limit` is the SETTINGS_HEADER_TABLE_SIZE this end advertised (4096 by default). */
  constructor(private readonly limit = 4096) {
    this.maxSize = limit;
  }

  /**
   * Decodes one complete header block into a flat list `[name, value, name, value, ...]`. Throws
   * HpackError when the block is malformed. `maxListSize` bounds the decoded fields (§4.1 sizes,
   * as SETTINGS_MAX_HEADER_LIST_SIZE counts them); the block is still decoded to the end so the
   * table stays in step, and `oversized` tells the caller to refuse the request.
   */
  decode(block: Uint8Array, maxListSize: number): { fields: string[]; oversized: boolean } {
    this.block = block;
    this.pos = 0;
    const fields: string[] = [];
    let listSize = 0;
    let fieldSeen = false;
    while (this.pos < block.length) {
      const first = block[this.pos]!;
      let name: string;
      let value: string;
      if (first & 0x80) {
        // §6.1 indexed field
        [name, value] = this.entry(this.integer(7));
      } else if (first & 0x40) {
        // §6.2.1 literal with incremental indexing
        [name, value] = this.literal(6);
        this.add(name, value);
      } else if (first & 0x20) {
        // §6.3 dynamic table size update: only before the first field (§4.2)
        if (fieldSeen) throw new HpackError('table size update after a header field');
        const size = this.integer(5);
        if (size > this.limit) throw new HpackError(`table size ${size} above the advertised ${this.limit}`);
        this.maxSize = size;
        this.evict(0);
        continue;
      } else {
        // §6.2.2 without indexing, §6.2.3 never indexed: both 4-bit prefixes
        [name, value] = this.literal(4);
      }
      fieldSeen = true;
      listSize += name.length + value.length + ENTRY_OVERHEAD;
      if (listSize <= maxListSize) fields.push(name, value);
    }
    this.block = new Uint8Array(0);
    return { fields, oversized: listSize > maxListSize };
  }

  private entry(index: number): readonly [string, string] {
    if (index === 0) throw new HpackError('index 0');
    if (index <= STATIC_COUNT) return STATIC_TABLE[index - 1]!;
    const entry = this.entries[index - STATIC_COUNT - 1];
    if (!entry) throw new HpackError(`index ${index} is not in the table`);
    return entry;
  }

  private literal(prefix: number): [string, string] {
    const index = this.integer(prefix);
    const name = index === 0 ? this.string() : this.entry(index)[0];
    return [name, this.string()];
  }

  /** §5.1: an N-bit prefix integer. */
  private integer(prefix: number): number {
    const block = this.block;
    if (this.pos >= block.length) throw new HpackError('truncated integer');
    const max = (1 << prefix) - 1;
    let value = block[this.pos++]! & max;
    if (value < max) return value;
    let shift = 0;
    for (;;) {
      if (this.pos >= block.length) throw new HpackError('truncated integer');
      const byte = block[this.pos++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (value > MAX_INTEGER) throw new HpackError('integer too large');
      if ((byte & 0x80) === 0) return value;
      shift += 7;
      // Continuation bytes that add nothing (0x80) leave the value small while the shift grows,
      // until 2 ** shift is Infinity and 0 * Infinity is NaN, which passes every comparison: a
      // table size of NaN then disabled eviction (review finding: unbounded memory). No integer
      // within MAX_INTEGER needs more continuation bytes than this.
      if (shift > 28) throw new HpackError('integer too large');
    }
  }

  /** §5.2: a string literal, raw or Huffman coded. */
  private string(): string {
    if (this.pos >= this.block.length) throw new HpackError('truncated string');
    const huffman = (this.block[this.pos]! & 0x80) !== 0;
    const length = this.integer(7);
    const start = this.pos;
    const end = start + length;
    if (end > this.block.length) throw new HpackError('truncated string');
    this.pos = end;
    if (!huffman) return Buffer.from(this.block.buffer, this.block.byteOffset + start, length).toString('latin1');
    try {
      return huffmanDecode(this.block, start, end);
    } catch (err) {
      if (err instanceof HuffmanError) throw new HpackError(err.message);
      throw err;
    }
  }

  /** §4.4: adding an entry evicts the oldest until it fits; one larger than the table empties it. */
  private add(name: string, value: string): void {
    const size = name.length + value.length + ENTRY_OVERHEAD;
    this.evict(size);
    if (size > this.maxSize) return;
    this.entries.unshift([name, value]);
    this.size += size;
  }

  private evict(room: number): void {
    while (this.entries.length > 0 && this.size + room > this.maxSize) {
      const [n, v] = this.entries.pop()!;
      this.size -= n.length + v.length + ENTRY_OVERHEAD;
    }
  }
}
