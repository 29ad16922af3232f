/**
 * HTTP/2 framing constants and helpers (RFC 9113 §4, §6, §7, §11): frame types and flags, error
 * codes, settings identifiers, and the two error kinds of §5.4: a connection error ends the
 * connection with GOAWAY, a stream error ends one stream with RST_STREAM.
 */
export const FRAME_HEADER = 9;

export const FRAME = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

export const FLAG = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

export const ERROR = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  ENHANCE_YOUR_CALM: 0xb,
} as const;

export const SETTING = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

/** §6.5.2 defaults, and the largest window §6.9.1 allows. */
export const DEFAULT_WINDOW = 65_535;
export const DEFAULT_MAX_FRAME = 16_384;
export const MAX_FRAME_LIMIT = 16_777_215;
export const MAX_WINDOW = 2 ** 31 - 1;

/** The client connection preface (§3.4), before its first SETTINGS frame. */
export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export class ConnectionError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class StreamError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Writes a frame header at `offset` and returns the offset after it. */
export function writeFrameHeader(
  buf: Buffer,
  offset: number,
  length: number,
  type: number,
  flags: number,
  stream: number,
): number {
  buf[offset] = length >>> 16;
  buf[offset + 1] = (length >>> 8) & 0xff;
  buf[offset + 2] = length & 0xff;
  buf[offset + 3] = type;
  buf[offset + 4] = flags;
  buf.writeUInt32BE(stream, offset + 5);
  return offset + FRAME_HEADER;
}

const EMPTY = new Uint8Array(0);

/** A whole frame with `payload`. */
export function frame(type: number, flags: number, stream: number, payload: Uint8Array = EMPTY): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER + payload.length);
  writeFrameHeader(out, 0, payload.length, type, flags, stream);
  out.set(payload, FRAME_HEADER);
  return out;
}

/** A frame whose payload is one 32-bit value (RST_STREAM's error code, WINDOW_UPDATE's increment). */
export function frame32(type: number, stream: number, value: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER + 4);
  writeFrameHeader(out, 0, 4, type, 0, stream);
  out.writeUInt32BE(value, FRAME_HEADER);
  return out;
}
