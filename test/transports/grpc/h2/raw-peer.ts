/**
 * Test helper: an HTTP/2 client written frame by frame on a TCP socket, for what a well-behaved
 * client (node:http2, grpc-js) never sends: broken prefaces, floods, resets, idle streams. It
 * records every frame the server sends and decodes header blocks with its own HPACK decoder.
 */
import { connect, type Socket } from 'node:net';
import { FRAME, FRAME_HEADER, frame, PREFACE } from '../../../../transports/grpc/h2/frames.js';
import { HpackDecoder } from '../../../../transports/grpc/h2/hpack/decoder.js';
import { encodeHeaders, type OutgoingHeaders } from '../../../../transports/grpc/h2/hpack/encoder.js';

export interface SeenFrame {
  type: number;
  flags: number;
  stream: number;
  payload: Buffer;
  /** Decoded fields of a HEADERS frame. */
  fields?: Record<string, string>;
}

/** The client preface and a SETTINGS frame (empty, or with the given settings). */
export function helloBytes(settings: [number, number][] = []): Buffer {
  const payload = Buffer.alloc(settings.length * 6);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, i * 6);
    payload.writeUInt32BE(value, i * 6 + 2);
  });
  return Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0, payload)]);
}

/** A HEADERS frame for a request on `stream`; `:method POST`, `:scheme http`, `:path /x` unless given. */
export function requestBytes(stream: number, flags: number, extra: OutgoingHeaders = {}): Buffer {
  const block = encodeHeaders({
    ':method': 'POST',
    ':scheme': 'http',
    ':path': '/x',
    ':authority': 'localhost',
    ...extra,
  });
  return frame(FRAME.HEADERS, flags, stream, block);
}

export class RawPeer {
  readonly frames: SeenFrame[] = [];
  readonly closed: Promise<void>;
  private input = Buffer.alloc(0);
  private readonly decoder = new HpackDecoder();
  private waiters: (() => void)[] = [];

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    void this.closed.then(() => this.wake());
  }

  static async connect(port: number): Promise<RawPeer> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawPeer(socket);
  }

  /** The client preface and an empty (or given) SETTINGS frame. */
  hello(settings: [number, number][] = []): this {
    return this.send(helloBytes(settings));
  }

  send(bytes: Buffer): this {
    this.socket.write(bytes);
    return this;
  }

  frame(type: number, flags: number, stream: number, payload: Uint8Array = Buffer.alloc(0)): this {
    return this.send(frame(type, flags, stream, payload));
  }

  /** A request header block on `stream` (requestBytes). */
  request(stream: number, flags: number, extra: OutgoingHeaders = {}): this {
    return this.send(requestBytes(stream, flags, extra));
  }

  /** Resolves with the first frame (already seen or coming) that matches, or fails after `ms`. */
  async waitFor(match: (f: SeenFrame) => boolean, ms = 3000): Promise<SeenFrame> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      if (this.socket.destroyed || Date.now() > deadline)
        throw new Error(
          `no matching frame; saw ${this.frames.map((f) => `${f.type}/${f.flags}@${f.stream}`).join(' ')}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The GOAWAY error code the server sent, once it has sent one. */
  async goAwayCode(): Promise<number> {
    const f = await this.waitFor((x) => x.type === FRAME.GOAWAY);
    return f.payload.readUInt32BE(4);
  }

  close(): void {
    this.socket.destroy();
  }

  /** Stops (and resumes) reading what the server sends, like a client that no longer reads. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  private read(chunk: Buffer): void {
    this.input = Buffer.concat([this.input, chunk]);
    while (this.input.length >= FRAME_HEADER) {
      const length = this.input.readUIntBE(0, 3);
      if (this.input.length < FRAME_HEADER + length) break;
      const f: SeenFrame = {
        type: this.input[3]!,
        flags: this.input[4]!,
        stream: this.input.readUInt32BE(5) & 0x7fffffff,
        payload: Buffer.from(this.input.subarray(FRAME_HEADER, FRAME_HEADER + length)),
      };
      if (f.type === FRAME.HEADERS) {
        const { fields } = this.decoder.decode(f.payload, 1e9);
        f.fields = {};
        for (let i = 0; i < fields.length; i += 2) f.fields[fields[i]!] = fields[i + 1]!;
      }
      this.frames.push(f);
      this.input = this.input.subarray(FRAME_HEADER + length);
    }
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
