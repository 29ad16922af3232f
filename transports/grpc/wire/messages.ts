/**
 * gRPC's length-prefixed messages (grpc/doc/PROTOCOL-HTTP2.md, "Length-Prefixed-Message"): one
 * byte compressed flag, a four-byte big-endian length, then the message. A request body is a
 * sequence of them split across HTTP/2 DATA frames however the peer likes, so the reader keeps
 * what it has not finished and refuses a message as soon as its header announces more than the
 * limit, before buffering it (the same bound as the HTTP body limit, DESIGN.md §5).
 */
import { GrpcFailure } from './failure.js';
import { GRPC_STATUS } from './status.js';

export interface IncomingMessage {
  compressed: boolean;
  bytes: Buffer;
}

const HEADER = 5;
const EMPTY = Buffer.alloc(0);

export class MessageReader {
  private buffered: Buffer = EMPTY;

  constructor(private readonly limit: number) {}

  /** Adds a chunk of the body and returns the messages it completed, in order. */
  push(chunk: Buffer): IncomingMessage[] {
    let buf = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const out: IncomingMessage[] = [];
    while (buf.length >= HEADER) {
      const flag = buf[0];
      if (flag !== 0 && flag !== 1) throw new GrpcFailure(GRPC_STATUS.INVALID_ARGUMENT, `invalid message flag ${flag}`);
      const length = buf.readUInt32BE(1);
      if (length > this.limit) throw new GrpcFailure(GRPC_STATUS.RESOURCE_EXHAUSTED, `received message larger than max (${length} vs. ${this.limit})`);
      if (buf.length < HEADER + length) break;
      out.push({ compressed: flag === 1, bytes: buf.subarray(HEADER, HEADER + length) });
      buf = buf.subarray(HEADER + length);
    }
    this.buffered = buf;
    return out;
  }

  /** True when the body ended inside a message (a truncated request). */
  get partial(): boolean {
    return this.buffered.length > 0;
  }
}

/** One message framed for the wire, uncompressed (responses are never compressed). */
export function frameMessage(bytes: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(HEADER + bytes.length);
  frame[0] = 0;
  frame.writeUInt32BE(bytes.length, 1);
  frame.set(bytes, HEADER);
  return frame;
}
