/**
 * A strict pass over a request message's bytes before protobufjs decodes it. protobufjs is
 * lenient where the protobuf encoding is not: a length-delimited field that claims more bytes
 * than are left is cut short instead of refused, and a string field's invalid UTF-8 becomes
 * U+FFFD. A truncated `given_name` would be stored as the bytes that arrived, and a name with
 * invalid UTF-8 would come back changed. The protobuf encoding makes both parse errors
 * (protobuf.dev "Encoding": a LEN record's payload is exactly its length; proto3 string fields
 * "must always contain UTF-8 encoded text").
 *
 * Checked, by the model's message types: every record's tag, that a known field comes with the
 * wire type its type is written with, that every varint
 * ends within 10 bytes, that every fixed and length-delimited payload fits in its message, that
 * string and JSON-text fields are valid UTF-8, and nested messages the same way, recursively.
 * Unknown field numbers are skipped by their wire type, as protobuf requires; groups (wire types
 * 3 and 4, absent from proto3) are refused.
 */
import { isUtf8 } from 'node:buffer';
import type { ProtoField, ProtoModel } from './proto-model.js';

/** Why the bytes are not a message of the type; null when they are. */
export function messageProblem(model: ProtoModel, messageName: string, bytes: Uint8Array): string | null {
  return checkMessage(model, messageName, bytes, 0, bytes.length, 0);
}

/** Deeper than any message of the model nests; bounds the recursion on hostile input. */
const MAX_DEPTH = 32;

function checkMessage(
  model: ProtoModel,
  name: string,
  bytes: Uint8Array,
  start: number,
  end: number,
  depth: number,
): string | null {
  if (depth > MAX_DEPTH) return 'nested too deeply';
  const fields = fieldsByNumber(model, name);
  let pos = start;
  while (pos < end) {
    const tag = readVarint(bytes, pos, end);
    if (!tag) return 'a field tag is cut short';
    pos = tag.next;
    const number = Math.floor(tag.value / 8);
    const wireType = tag.value % 8;
    if (number === 0) return 'a field number is 0';
    const field = fields.get(number);
    if (field && !wireTypeFits(field, wireType))
      return `field ${field.name}: wire type ${wireType} does not carry its type`;
    switch (wireType) {
      case 0: {
        const v = readVarint(bytes, pos, end);
        if (!v) return `field ${number}: a varint is cut short`;
        pos = v.next;
        break;
      }
      case 1:
        pos += 8;
        break;
      case 5:
        pos += 4;
        break;
      case 2: {
        const len = readVarint(bytes, pos, end);
        if (!len) return `field ${number}: a length is cut short`;
        const payloadEnd = len.next + len.value;
        if (payloadEnd > end) return `field ${number}: ${len.value} bytes announced, ${end - len.next} left`;
        const problem = field ? checkPayload(model, field, bytes, len.next, payloadEnd, depth) : null;
        if (problem) return problem;
        pos = payloadEnd;
        break;
      }
      default:
        return `field ${number}: wire type ${wireType} is not used by proto3`;
    }
    if (pos > end) return `field ${number}: the value is cut short`;
  }
  return null;
}

function checkPayload(
  model: ProtoModel,
  field: ProtoField,
  bytes: Uint8Array,
  start: number,
  end: number,
  depth: number,
): string | null {
  const { type } = field;
  if (type.kind === 'message') return checkMessage(model, type.message, bytes, start, end, depth + 1);
  if (type.kind === 'json' || type.scalar === 'string') {
    return isUtf8(bytes.subarray(start, end)) ? null : `field ${field.name}: not valid UTF-8`;
  }
  // A packed repeated scalar: its items are checked by protobufjs' own bounds (numbers only).
  return null;
}

/** The wire types a field's type is written with (2 also for a packed repeated number). */
function wireTypeFits(field: ProtoField, wireType: number): boolean {
  const { type } = field;
  if (type.kind !== 'scalar' || type.scalar === 'string') return wireType === 2;
  if (wireType === 2) return field.repeated;
  return type.scalar === 'double' ? wireType === 1 : wireType === 0;
}

/** A varint of at most 10 bytes ending before `end`; null when cut short or too long. */
function readVarint(bytes: Uint8Array, pos: number, end: number): { value: number; next: number } | null {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos + i >= end) return null;
    const b = bytes[pos + i];
    value += (b & 0x7f) * scale;
    scale *= 128;
    if (b < 0x80) return { value, next: pos + i + 1 };
  }
  return null;
}

const byNumberCache = new WeakMap<ProtoModel, Map<string, Map<number, ProtoField>>>();

function fieldsByNumber(model: ProtoModel, name: string): Map<number, ProtoField> {
  let perModel = byNumberCache.get(model);
  if (!perModel) {
    perModel = new Map();
    byNumberCache.set(model, perModel);
  }
  let fields = perModel.get(name);
  if (!fields) {
    fields = new Map(model.message(name).fields.map((f) => [f.number, f]));
    perModel.set(name, fields);
  }
  return fields;
}
