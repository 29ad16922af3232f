/**
 * HPACK encoding of response header blocks (RFC 7541). Stateless on purpose: fields are sent as
 * static-table references or as literals without indexing (§6.2.2), never added to the dynamic
 * table, so the peer's SETTINGS_HEADER_TABLE_SIZE never matters and there is no encoder state to
 * keep in step. Literals are raw (not Huffman): every decoder accepts them and they cost nothing
 * to produce. Response headers are few and small; the one that repeats on every call
 * (`grpc-status: 0`) is encoded once by the caller.
 */
import { STATIC_TABLE } from './static-table.js';

export type HeaderValue = string | number | string[] | undefined;
/** Response headers by lowercase name; a list repeats the field (`set-cookie`). */
export type OutgoingHeaders = Record<string, HeaderValue>;

const FIELD_INDEX = new Map<string, number>();
const NAME_INDEX = new Map<string, number>();
STATIC_TABLE.forEach(([name, value], i) => {
  if (value !== '') FIELD_INDEX.set(`${name}\0${value}`, i + 1);
  if (!NAME_INDEX.has(name)) NAME_INDEX.set(name, i + 1);
});

class BlockWriter {
  private buf = Buffer.allocUnsafe(256);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  /** §5.1 integer with an N-bit prefix; `flags` fills the bits above the prefix. */
  integer(value: number, prefix: number, flags: number): void {
    this.room(6);
    const max = (1 << prefix) - 1;
    if (value < max) {
      this.buf[this.length++] = flags | value;
      return;
    }
    this.buf[this.length++] = flags | max;
    let rest = value - max;
    while (rest >= 128) {
      this.buf[this.length++] = (rest % 128) | 0x80;
      rest = Math.floor(rest / 128);
    }
    this.buf[this.length++] = rest;
  }

  /** §5.2 raw string literal (H = 0). */
  string(text: string): void {
    const bytes = Buffer.byteLength(text, 'latin1');
    this.integer(bytes, 7, 0);
    this.room(bytes);
    this.length += this.buf.write(text, this.length, 'latin1');
  }

  result(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function field(out: BlockWriter, name: string, value: string): void {
  const both = FIELD_INDEX.get(`${name}\0${value}`);
  if (both !== undefined) return out.integer(both, 7, 0x80); // §6.1
  const nameIndex = NAME_INDEX.get(name);
  if (nameIndex !== undefined)
    out.integer(nameIndex, 4, 0x00); // §6.2.2, indexed name
  else {
    out.integer(0, 4, 0x00); // §6.2.2, new name
    out.string(name);
  }
  out.string(value);
}

/** One header block; names must already be lowercase, pseudo-headers first (RFC 9113 §8.3). */
export function encodeHeaders(headers: Readonly<OutgoingHeaders>): Buffer {
  const out = new BlockWriter();
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (typeof value === 'object') for (const v of value) field(out, name, v);
    else field(out, name, String(value));
  }
  return out.result();
}
