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
  /** Chunks after `buffered` not joined yet, and their total length. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes the message being read needs in all (header included); 0 while its header is incomplete. */
  private needed = 0;

  constructor(private readonly limit: number) {}

  /**
   * Adds a chunk of the body and returns the messages it completed, in order. Chunks are joined
   * once the message they belong to is complete, not on every chunk: joining per chunk copied
   * the whole buffer each time, quadratic in a message sent as tiny DATA frames (a 1 MB message
   * in 64-byte frames took 5 s of the event loop: a review finding).
   */
  push(chunk: Buffer): IncomingMessage[] {
    if (this.needed > 0 && this.buffered.length + this.pendingBytes + chunk.length < this.needed) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      return [];
    }
    let buf =
      this.buffered.length === 0 && this.pending.length === 0
        ? chunk
        : Buffer.concat([this.buffered, ...this.pending, chunk]);
    this.pending = [];
    this.pendingBytes = 0;
    this.needed = 0;
    const out: IncomingMessage[] = [];
    while (buf.length >= HEADER) {
      const flag = buf[0];
      if (flag !== 0 && flag !== 1) throw new GrpcFailure(GRPC_STATUS.INVALID_ARGUMENT, `invalid message flag ${flag}`);
      const length = buf.readUInt32BE(1);
      if (length > this.limit)
        throw new GrpcFailure(
          GRPC_STATUS.RESOURCE_EXHAUSTED,
          `received message larger than max (${length} vs. ${this.limit})`,
        );
      if (buf.length < HEADER + length) {
        this.needed = HEADER + length;
        break;
      }
      out.push({ compressed: flag === 1, bytes: buf.subarray(HEADER, HEADER + length) });
      buf = buf.subarray(HEADER + length);
    }
    this.buffered = buf;
    return out;
  }

  /** True when the body ended inside a message (a truncated request). */
  get partial(): boolean {
    return this.buffered.length + this.pendingBytes > 0;
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
