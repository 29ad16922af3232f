/**
 * One server-side HTTP/2 connection over cleartext TCP with prior knowledge (h2c, RFC 9113 §3.3),
 * which is how gRPC clients reach a plaintext port. It reads frames, keeps the HPACK decoder and
 * the flow-control windows, opens an H2Stream per request and hands it to the server, and writes
 * every frame produced while handling one read (or one turn of promise callbacks) as one socket
 * write.
 *
 * What the peer may not do is bounded here, not left to chance (RFC 9113 §10.5): concurrent
 * streams (SETTINGS_MAX_CONCURRENT_STREAMS), header list size (431 answer), header block size and
 * CONTINUATION count, streams the peer opens and resets at once (a token bucket, after the
 * 2023 "rapid reset" attacks), bytes queued for a peer that does not read, and the time to send
 * the connection preface.
 */
import type { Socket } from 'node:net';
import {
  ConnectionError,
  DEFAULT_MAX_FRAME,
  DEFAULT_WINDOW,
  ERROR,
  FLAG,
  frame,
  frame32,
  FRAME,
  FRAME_HEADER,
  MAX_FRAME_LIMIT,
  MAX_WINDOW,
  PREFACE,
  SETTING,
  StreamError,
  writeFrameHeader,
} from './frames.js';
import { HpackDecoder, HpackError } from './hpack/decoder.js';
import { encodeHeaders } from './hpack/encoder.js';
import { H2Stream, type RequestHeaders } from './stream.js';
import { checkRequestFields, checkTrailerFields, contentLengthOf, MalformedRequest } from './request-fields.js';

export interface ConnectionLimits {
  /** SETTINGS_MAX_CONCURRENT_STREAMS advertised and enforced. */
  maxConcurrentStreams: number;
  /** SETTINGS_MAX_HEADER_LIST_SIZE advertised; a larger request is answered 431. */
  maxHeaderListSize: number;
  /** How long a new connection may take to send its preface and SETTINGS. */
  handshakeTimeoutMs: number;
  /** Bytes written but not yet taken by the peer before the connection is dropped. */
  maxBufferedBytes: number;
  /** Request bytes held for streams the peer has not ended (see ReceiveBudget). */
  received: ReceiveBudget;
  /** A connection with no stream open and no new one for this long is closed (GOAWAY). */
  idleTimeoutMs: number;
}

/**
 * Request bytes this side holds for streams whose request has not ended yet, per connection and
 * over all of one server's connections. The windows are refilled as DATA arrives (a unary
 * request must arrive whole before its call runs), so without this a peer could open its
 * maximum of streams, send each nearly a whole message and never end them: 2 GB held by two
 * connections in a review (finding). Past either bound the stream whose DATA went over is
 * reset with ENHANCE_YOUR_CALM and its bytes are let go.
 */
export class ReceiveBudget {
  used = 0;
  constructor(
    readonly perConnection: number,
    readonly total: number,
  ) {}
}

export type StreamHandler = (stream: H2Stream) => void;

/** The connection window this side keeps open; refilled when half is used. */
const CONNECTION_WINDOW = 1 << 20;
/** A header block (HEADERS plus CONTINUATIONs) may not grow past this many bytes or frames. */
const MAX_BLOCK_BYTES = 128 * 1024;
const MAX_CONTINUATIONS = 64;
/**
 * Stream ids remembered after they end (each kind): those this side reset, so frames the peer
 * sent before it saw the reset are dropped (§5.1), and those that closed, so a new header block
 * on one is told apart from a stream id going backwards (§5.1.1).
 */
const RECENT_RESETS = 256;
/** RFC 7541 §6.3: dynamic table size update to 0. */
const TABLE_SIZE_ZERO = Buffer.from([0x20]);
/** Streams the peer may reset before this side answered: a burst, then this many per second. */
const RESET_BURST = 1000;
const RESET_RATE = 33;
/** How long a closing connection waits for the peer to take its last bytes. */
const END_GRACE_MS = 10_000;

export class H2Connection {
  private readonly streams = new Map<number, H2Stream>();

  /** Bytes of an unfinished preface or frame, kept as they came until `needed` bytes are in. */
  private parts: Buffer[] = [];
  private partsBytes = 0;
  /** Bytes required before parsing can go on: the preface, a frame header, or a whole frame. */
  private needed = PREFACE.length;
  private prefaceSeen = false;
  private settingsSeen = false;
  private readonly decoder = new HpackDecoder();
  private lastStreamId = 0;
  /** Bytes held by streams for the peer's windows (`hold`). */
  private held = 0;
  /** Request bytes held for streams the peer has not ended (ReceiveBudget), and by stream. */
  private received = 0;
  private readonly receivedBy = new Map<H2Stream, number>();
  private idleTimer: NodeJS.Timeout | undefined;
  private lastStreamAt = Date.now();
  /** Streams this side reset lately, oldest first (at most RECENT_RESETS): a late HEADERS on one is dropped. */
  private readonly recentlyReset = new Set<number>();
  /** Streams that were open and have closed, lately (at most RECENT_RESETS). */
  private readonly recentlyClosed = new Set<number>();
  /** The peer's SETTINGS named a header table size: the next header block starts with a size update (RFC 7541 §4.2). */
  private tableSizeUpdate = false;
  private out: Buffer[] = [];
  private flushQueued = false;
  private dead = false;
  private goingAway = false;
  private handshakeTimer: NodeJS.Timeout | undefined;

  // Flow control (§6.9): what this side may send, connection-wide and as each new stream's start.
  private sendWindow = DEFAULT_WINDOW;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrame = DEFAULT_MAX_FRAME;
  private recvWindow = DEFAULT_WINDOW;
  private recvConsumed = 0;
  private readonly blocked = new Set<H2Stream>();

  // A header block being received across CONTINUATION frames.
  private blockStream = 0;
  private blockFlags = 0;
  /** The block's HEADERS frame made the stream depend on itself (§5.3.1). */
  private blockSelfDependent = false;
  private blockParts: Buffer[] = [];
  private blockBytes = 0;
  private blockFrames = 0;

  private resetTokens = RESET_BURST;
  private resetRefilled = Date.now();

  constructor(
    private readonly socket: Socket,
    readonly remoteAddress: string,
    private readonly limits: ConnectionLimits,
    private readonly onStream: StreamHandler,
    private readonly onGone: (connection: H2Connection) => void,
    private readonly onProblem: (err: Error) => void,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', (err) => this.onProblem(err));
    socket.on('close', () => this.closed());
    this.handshakeTimer = setTimeout(() => this.destroy(), limits.handshakeTimeoutMs);
    this.armIdle(limits.idleTimeoutMs);
    // §3.4: the server's preface is a SETTINGS frame, sent at once; then the larger window.
    const settings = Buffer.allocUnsafe(12);
    settings.writeUInt16BE(SETTING.MAX_CONCURRENT_STREAMS, 0);
    settings.writeUInt32BE(limits.maxConcurrentStreams, 2);
    settings.writeUInt16BE(SETTING.MAX_HEADER_LIST_SIZE, 6);
    settings.writeUInt32BE(limits.maxHeaderListSize, 8);
    this.push(frame(FRAME.SETTINGS, 0, 0, settings));
    this.push(frame32(FRAME.WINDOW_UPDATE, 0, CONNECTION_WINDOW - DEFAULT_WINDOW));
    this.recvWindow = CONNECTION_WINDOW;
    this.flush();
  }

  /**
   * Closes a connection that has had no stream open and started none for `idleTimeoutMs` (an
   * idle peer held its socket forever: a review finding); clients reconnect when they next call.
   */
  private armIdle(ms: number): void {
    this.idleTimer = setTimeout(() => {
      if (this.dead) return;
      const quietFor = Date.now() - this.lastStreamAt;
      if (this.streams.size === 0 && quietFor >= this.limits.idleTimeoutMs) {
        this.goAway();
        return;
      }
      this.armIdle(Math.max(1, this.limits.idleTimeoutMs - (this.streams.size === 0 ? quietFor : 0)));
    }, ms);
    this.idleTimer.unref();
  }

  /** Stops taking new streams (GOAWAY, §6.8); the connection ends when its streams are done. */
  goAway(): void {
    if (this.dead || this.goingAway) return;
    this.goingAway = true;
    this.push(this.goAwayFrame(ERROR.NO_ERROR, ''));
    this.flush();
    this.endIfIdle();
  }

  destroy(): void {
    this.socket.destroy();
  }

  // ---- output ----

  private push(buf: Buffer): void {
    this.out.push(buf);
    if (!this.flushQueued) {
      this.flushQueued = true;
      process.nextTick(flushLater, this);
    }
  }

  flush(): void {
    this.flushQueued = false;
    const out = this.out;
    if (out.length === 0 || this.dead) return;
    this.out = [];
    this.socket.write(out.length === 1 ? out[0]! : Buffer.concat(out));
    this.checkBuffered();
  }

  /**
   * Response bytes of streams waiting for the peer's flow-control windows (stream.ts `wait`):
   * with the socket's own queue, what a peer that does not read, or keeps its windows shut,
   * makes this process hold. Both count against `maxBufferedBytes`.
   */
  hold(bytes: number): void {
    this.held += bytes;
    if (bytes > 0) this.checkBuffered();
  }

  private checkBuffered(): void {
    if (this.dead || this.socket.writableLength + this.held <= this.limits.maxBufferedBytes) return;
    this.onProblem(new Error(`HTTP/2 peer ${this.remoteAddress} is not reading; connection dropped`));
    this.destroy();
  }

  /** A header block as HEADERS plus CONTINUATION frames no larger than the peer allows. */
  sendHeaders(stream: number, block: Buffer, endStream: boolean): void {
    if (this.dead) return;
    if (this.tableSizeUpdate) {
      this.tableSizeUpdate = false;
      block = Buffer.concat([TABLE_SIZE_ZERO, block]);
    }
    const max = this.peerMaxFrame;
    const frames = Math.max(1, Math.ceil(block.length / max));
    const out = Buffer.allocUnsafe(frames * FRAME_HEADER + block.length);
    let o = 0;
    for (let i = 0, at = 0; i < frames; i++, at += max) {
      const part = Math.min(max, block.length - at);
      const last = i === frames - 1;
      const type = i === 0 ? FRAME.HEADERS : FRAME.CONTINUATION;
      const flags = (last ? FLAG.END_HEADERS : 0) | (i === 0 && endStream ? FLAG.END_STREAM : 0);
      o = writeFrameHeader(out, o, part, type, flags, stream);
      block.copy(out, o, at, at + part);
      o += part;
    }
    this.push(out);
  }

  /** Sends as much of `data` as both windows allow, in DATA frames; returns the bytes sent. */
  sendData(stream: H2Stream, data: Buffer): number {
    if (this.dead) return data.length;
    const allowed = Math.max(0, Math.min(data.length, stream.sendWindow, this.sendWindow));
    if (allowed === 0) return 0;
    const max = this.peerMaxFrame;
    const frames = Math.ceil(allowed / max);
    const out = Buffer.allocUnsafe(frames * FRAME_HEADER + allowed);
    let o = 0;
    for (let at = 0; at < allowed; at += max) {
      const part = Math.min(max, allowed - at);
      o = writeFrameHeader(out, o, part, FRAME.DATA, 0, stream.id);
      data.copy(out, o, at, at + part);
      o += part;
    }
    stream.sendWindow -= allowed;
    this.sendWindow -= allowed;
    this.push(out);
    return allowed;
  }

  /** A fault of a stream's handler, for the server's log. */
  reportProblem(err: Error): void {
    this.onProblem(err);
  }

  resetStream(stream: number, code: number): void {
    this.push(frame32(FRAME.RST_STREAM, stream, code));
    // §5.1: frames the peer sent before it saw the reset must be ignored, trailers included.
    remember(this.recentlyReset, stream);
  }

  block(stream: H2Stream): void {
    this.blocked.add(stream);
  }

  unblock(stream: H2Stream): void {
    this.blocked.delete(stream);
  }

  forget(stream: H2Stream): void {
    this.release(stream);
    this.streams.delete(stream.id);
    this.lastStreamAt = Date.now();
    remember(this.recentlyClosed, stream.id);
    this.blocked.delete(stream);
    this.endIfIdle();
  }

  private goAwayFrame(code: number, debug: string): Buffer {
    const payload = Buffer.allocUnsafe(8 + Buffer.byteLength(debug));
    payload.writeUInt32BE(this.lastStreamId, 0);
    payload.writeUInt32BE(code, 4);
    payload.write(debug, 8);
    return frame(FRAME.GOAWAY, 0, 0, payload);
  }

  private endIfIdle(): void {
    if (this.goingAway && this.streams.size === 0 && !this.dead) {
      this.flush();
      // Once the last bytes are out, the socket is destroyed: a peer that never closes its side
      // does not keep it (review finding: after the idle GOAWAY it stayed half-closed for good).
      // A peer that does not read them either loses it after END_GRACE_MS; a slow reader still
      // gets the last response (a timer started at end() cut it off: review finding).
      this.socket.end(() => this.socket.destroy());
      setTimeout(() => this.socket.destroy(), END_GRACE_MS).unref();
    }
  }

  // ---- input ----

  private read(chunk: Buffer): void {
    if (this.dead) return;
    try {
      if (this.partsBytes + chunk.length < this.needed) {
        // Not enough to go on: keep the chunk as it is. Joining on every read would copy a frame
        // trickled in small pieces over and over, quadratic in its size.
        this.parts.push(chunk);
        this.partsBytes += chunk.length;
        if (!this.prefaceSeen) this.checkPreface(Buffer.concat(this.parts));
        return;
      }
      let buf = this.parts.length === 0 ? chunk : Buffer.concat([...this.parts, chunk]);
      this.parts = [];
      this.partsBytes = 0;
      if (!this.prefaceSeen) {
        this.checkPreface(buf);
        this.prefaceSeen = true;
        buf = buf.subarray(PREFACE.length);
      }
      let at = 0;
      while (buf.length - at >= FRAME_HEADER) {
        const length = (buf[at]! << 16) | (buf[at + 1]! << 8) | buf[at + 2]!;
        // This side never raises SETTINGS_MAX_FRAME_SIZE from its default (§4.2).
        if (length > DEFAULT_MAX_FRAME) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, `frame of ${length} bytes`);
        if (buf.length - at < FRAME_HEADER + length) break;
        const type = buf[at + 3]!;
        const flags = buf[at + 4]!;
        const stream = buf.readUInt32BE(at + 5) & 0x7fffffff;
        const payload = buf.subarray(at + FRAME_HEADER, at + FRAME_HEADER + length);
        at += FRAME_HEADER + length;
        this.frame(type, flags, stream, payload);
        if (this.dead) return;
      }
      this.needed = FRAME_HEADER;
      if (at < buf.length) {
        // Keep an unfinished frame, copied so the rest of a large chunk is not held.
        const rest = Buffer.from(buf.subarray(at));
        this.parts = [rest];
        this.partsBytes = rest.length;
        if (rest.length >= FRAME_HEADER) this.needed = FRAME_HEADER + ((rest[0]! << 16) | (rest[1]! << 8) | rest[2]!);
      }
    } catch (err) {
      if (err instanceof ConnectionError) this.fail(err);
      else {
        // A fault of ours while handling the peer's frames: end this connection, not the process.
        this.onProblem(err as Error);
        this.fail(new ConnectionError(ERROR.INTERNAL_ERROR, 'internal error'));
      }
    }
    this.flush();
  }

  /** The bytes so far must be the start of the client preface (§3.4); anything else is not h2c. */
  private checkPreface(buf: Buffer): void {
    const n = Math.min(buf.length, PREFACE.length);
    if (!buf.subarray(0, n).equals(PREFACE.subarray(0, n)))
      throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'not an HTTP/2 connection preface');
  }

  private frame(type: number, flags: number, stream: number, payload: Buffer): void {
    if (this.blockStream !== 0 && type !== FRAME.CONTINUATION)
      throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'header block interrupted');
    if (!this.settingsSeen && type !== FRAME.SETTINGS)
      throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'first frame is not SETTINGS');
    try {
      switch (type) {
        case FRAME.DATA:
          return this.onData(flags, stream, payload);
        case FRAME.HEADERS:
          return this.onHeaders(flags, stream, payload);
        case FRAME.CONTINUATION:
          return this.onContinuation(flags, stream, payload);
        case FRAME.PRIORITY:
          if (stream === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'PRIORITY on stream 0');
          if (payload.length !== 5) throw new StreamError(ERROR.FRAME_SIZE_ERROR, 'PRIORITY frame size');
          // §5.3.1: a stream cannot depend on itself. Otherwise priorities are advisory, and this
          // server has nothing to order.
          if ((payload.readUInt32BE(0) & 0x7fffffff) === stream)
            throw new StreamError(ERROR.PROTOCOL_ERROR, 'stream depends on itself');
          return;
        case FRAME.RST_STREAM:
          return this.onReset(stream, payload);
        case FRAME.SETTINGS:
          return this.onSettings(flags, stream, payload);
        case FRAME.PUSH_PROMISE:
          throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'PUSH_PROMISE from a client');
        case FRAME.PING:
          return this.onPing(flags, stream, payload);
        case FRAME.GOAWAY:
          return this.onGoAway(stream, payload);
        case FRAME.WINDOW_UPDATE:
          return this.onWindowUpdate(stream, payload);
        default:
          return; // unknown frame types are ignored (§4.1)
      }
    } catch (err) {
      if (!(err instanceof StreamError)) throw err;
      // "MadeYouReset" (CVE-2025-8671): a peer's mistake on a stream (a zero WINDOW_UPDATE, DATA
      // after its end) makes this side reset it, which frees its place under the concurrency
      // limit while its call may still run. Such resets draw on the same budget as the peer's own
      // RST_STREAM, so provoking them cannot open calls without bound (a review finding).
      if (!this.takeResetToken()) throw new ConnectionError(ERROR.ENHANCE_YOUR_CALM, 'too many streams reset');
      const open = this.streams.get(stream);
      if (open) open.close(err.code);
      else this.resetStream(stream, err.code);
    }
  }

  /** Strips §6.1 padding: the pad length byte and the padding itself. */
  private unpadded(flags: number, payload: Buffer): Buffer {
    if ((flags & FLAG.PADDED) === 0) return payload;
    if (payload.length < 1) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, 'padded frame without pad length');
    const pad = payload[0]!;
    if (pad >= payload.length) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'padding exceeds the frame');
    return payload.subarray(1, payload.length - pad);
  }

  private onData(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'DATA on stream 0');
    if (this.isIdle(id)) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'DATA on an idle stream');
    // Flow control counts the whole payload, padding included (§6.9.1).
    this.recvWindow -= payload.length;
    if (this.recvWindow < 0) throw new ConnectionError(ERROR.FLOW_CONTROL_ERROR, 'connection window exceeded');
    this.recvConsumed += payload.length;
    if (this.recvConsumed >= CONNECTION_WINDOW / 2) {
      this.push(frame32(FRAME.WINDOW_UPDATE, 0, this.recvConsumed));
      this.recvWindow += this.recvConsumed;
      this.recvConsumed = 0;
    }
    const stream = this.streams.get(id);
    if (!stream) {
      // A stream this side reset: frames the peer sent before it saw the reset are dropped (§5.1).
      if (this.recentlyReset.has(id)) return;
      // Closed after both sides ended it, or an id the peer skipped (closed by §5.1.1): §6.1.
      throw new StreamError(ERROR.STREAM_CLOSED, 'DATA on a closed stream');
    }
    if (stream.remoteEnded) throw new StreamError(ERROR.STREAM_CLOSED, 'DATA after END_STREAM');
    stream.recvWindow -= payload.length;
    if (stream.recvWindow < 0) throw new StreamError(ERROR.FLOW_CONTROL_ERROR, 'stream window exceeded');
    const data = this.unpadded(flags, payload);
    const end = (flags & FLAG.END_STREAM) !== 0;
    // §8.1.1: a body longer than its content-length, or ending shorter, is malformed.
    stream.receivedBytes += data.length;
    if (
      stream.declaredLength >= 0 &&
      (stream.receivedBytes > stream.declaredLength || (end && stream.receivedBytes !== stream.declaredLength))
    ) {
      throw new StreamError(ERROR.PROTOCOL_ERROR, 'body length differs from content-length');
    }
    stream.recvConsumed += payload.length;
    if (!end && stream.recvConsumed >= DEFAULT_WINDOW / 2) {
      this.push(frame32(FRAME.WINDOW_UPDATE, id, stream.recvConsumed));
      stream.recvWindow += stream.recvConsumed;
      stream.recvConsumed = 0;
    }
    if (end) this.release(stream);
    else this.take(stream, data.length);
    stream.receiveData(data);
    if (end) stream.receiveEnd();
  }

  /** Counts request bytes of a stream not ended yet against the budget (ReceiveBudget). */
  private take(stream: H2Stream, bytes: number): void {
    if (bytes === 0) return;
    const budget = this.limits.received;
    this.received += bytes;
    budget.used += bytes;
    this.receivedBy.set(stream, (this.receivedBy.get(stream) ?? 0) + bytes);
    // The stream that goes over is refused, not the connection: the connection's other calls,
    // nearly done, go on (review finding: closing the connection failed every call of a client
    // that sent a few large ones at once, and the server-wide bound closed whichever connection
    // crossed it, not the ones holding the bytes). grpc-js reports RESOURCE_EXHAUSTED.
    if (this.received > budget.perConnection || budget.used > budget.total) {
      throw new StreamError(ERROR.ENHANCE_YOUR_CALM, 'too many request bytes held for unfinished streams');
    }
  }

  /** The stream's request ended (its call has it whole) or the stream is gone: its bytes are let go. */
  private release(stream: H2Stream): void {
    const bytes = this.receivedBy.get(stream);
    if (bytes === undefined) return;
    this.receivedBy.delete(stream);
    this.received -= bytes;
    this.limits.received.used -= bytes;
  }

  private onHeaders(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'HEADERS on stream 0');
    let fragment = this.unpadded(flags, payload);
    this.blockSelfDependent = false;
    if (flags & FLAG.PRIORITY) {
      if (fragment.length < 5) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, 'HEADERS priority fields missing');
      // §5.3.1: a stream error, raised once the block is decoded (the HPACK state must follow it).
      this.blockSelfDependent = (fragment.readUInt32BE(0) & 0x7fffffff) === id;
      fragment = fragment.subarray(5);
    }
    this.blockFlags = flags;
    if (flags & FLAG.END_HEADERS) return this.headerBlock(id, flags, fragment);
    this.blockStream = id;
    this.blockParts = [Buffer.from(fragment)];
    this.blockBytes = fragment.length;
    this.blockFrames = 1;
  }

  private onContinuation(flags: number, id: number, payload: Buffer): void {
    if (this.blockStream === 0 || id !== this.blockStream)
      throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'CONTINUATION without a header block');
    this.blockBytes += payload.length;
    this.blockFrames++;
    if (this.blockBytes > MAX_BLOCK_BYTES || this.blockFrames > MAX_CONTINUATIONS)
      throw new ConnectionError(ERROR.ENHANCE_YOUR_CALM, 'header block too large');
    this.blockParts.push(Buffer.from(payload));
    if ((flags & FLAG.END_HEADERS) === 0) return;
    const block = Buffer.concat(this.blockParts);
    this.blockStream = 0;
    this.blockParts = [];
    this.headerBlock(id, this.blockFlags, block);
  }

  /** A complete header block: a new request, or the trailers of one in progress. */
  private headerBlock(id: number, flags: number, block: Buffer): void {
    let decoded: { fields: string[]; oversized: boolean };
    try {
      decoded = this.decoder.decode(block, this.limits.maxHeaderListSize);
    } catch (err) {
      if (err instanceof HpackError) throw new ConnectionError(ERROR.COMPRESSION_ERROR, err.message);
      throw err;
    }
    const end = (flags & FLAG.END_STREAM) !== 0;
    const existing = this.streams.get(id);
    if (existing) {
      if (this.blockSelfDependent) throw new StreamError(ERROR.PROTOCOL_ERROR, 'stream depends on itself');
      // Trailers (§8.1): they end the request and carry no pseudo-header.
      if (!end || existing.remoteEnded)
        throw new StreamError(ERROR.PROTOCOL_ERROR, 'second header block without END_STREAM');
      try {
        checkTrailerFields(decoded.fields);
      } catch (err) {
        if (err instanceof MalformedRequest) throw new StreamError(ERROR.PROTOCOL_ERROR, err.message);
        throw err;
      }
      // §8.1.1: trailers end the body; it must be as long as the content-length said.
      if (existing.declaredLength >= 0 && existing.receivedBytes !== existing.declaredLength) {
        throw new StreamError(ERROR.PROTOCOL_ERROR, 'body length differs from content-length');
      }
      existing.receiveEnd();
      return;
    }
    if (id % 2 === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, `client stream ${id} is even`);
    if (id <= this.lastStreamId) {
      if (this.recentlyReset.has(id)) return; // trailers in flight when this side reset the stream
      // A stream that was open and has closed (§5.1), or a new stream id below the last (§5.1.1).
      if (this.recentlyClosed.has(id)) throw new ConnectionError(ERROR.STREAM_CLOSED, `stream ${id} is closed`);
      throw new ConnectionError(
        ERROR.PROTOCOL_ERROR,
        `stream ${id} is below the last stream opened (${this.lastStreamId})`,
      );
    }
    this.lastStreamId = id;
    if (this.blockSelfDependent) return this.resetStream(id, ERROR.PROTOCOL_ERROR);
    if (this.goingAway || this.streams.size >= this.limits.maxConcurrentStreams)
      return this.resetStream(id, ERROR.REFUSED_STREAM);
    if (decoded.oversized) {
      // §10.5.1: a request whose header list is too large gets 431.
      this.sendHeaders(id, encodeHeaders({ ':status': 431 }), true);
      if (!end) this.resetStream(id, ERROR.NO_ERROR); // no stream object was made: §8.1 by hand
      return;
    }
    let headers: RequestHeaders;
    let declaredLength: number;
    try {
      headers = checkRequestFields(decoded.fields);
      declaredLength = contentLengthOf(headers);
    } catch (err) {
      if (err instanceof MalformedRequest) return this.resetStream(id, ERROR.PROTOCOL_ERROR); // §8.1.1
      throw err;
    }
    // §8.1.1: a request that ends with its headers has an empty body.
    if (end && declaredLength > 0) return this.resetStream(id, ERROR.PROTOCOL_ERROR);
    const stream = new H2Stream(this, id, headers, this.peerInitialWindow, DEFAULT_WINDOW);
    stream.declaredLength = declaredLength;
    this.streams.set(id, stream);
    this.lastStreamAt = Date.now();
    if (end) stream.openedEnded();
    try {
      this.onStream(stream);
    } catch (err) {
      // The same rule as for the stream's own callbacks (stream.ts handlerFailed).
      this.onProblem(err as Error);
      stream.close(ERROR.INTERNAL_ERROR);
      return;
    }
    if (end) stream.deliverOpenedEnd();
  }

  private onReset(id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'RST_STREAM on stream 0');
    if (payload.length !== 4) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, 'RST_STREAM frame size');
    if (this.isIdle(id)) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'RST_STREAM on an idle stream');
    const stream = this.streams.get(id);
    if (!stream) return;
    if (!this.takeResetToken()) throw new ConnectionError(ERROR.ENHANCE_YOUR_CALM, 'too many streams reset');
    stream.abort();
  }

  /**
   * §5.1: a stream the peer has not opened. Ids above the last one opened are idle; so is every
   * even id, since only this side could open those (§5.1.1) and it opens none (no push).
   */
  private isIdle(id: number): boolean {
    return id > this.lastStreamId || id % 2 === 0;
  }

  private takeResetToken(): boolean {
    const now = Date.now();
    this.resetTokens = Math.min(RESET_BURST, this.resetTokens + ((now - this.resetRefilled) / 1000) * RESET_RATE);
    this.resetRefilled = now;
    if (this.resetTokens < 1) return false;
    this.resetTokens--;
    return true;
  }

  private onSettings(flags: number, id: number, payload: Buffer): void {
    if (id !== 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'SETTINGS on a stream');
    if (flags & FLAG.ACK) {
      if (payload.length !== 0) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, 'SETTINGS ACK with a payload');
      return;
    }
    if (payload.length % 6 !== 0) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, 'SETTINGS frame size');
    for (let at = 0; at < payload.length; at += 6) {
      const setting = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      if (setting === SETTING.ENABLE_PUSH && value > 1)
        throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'SETTINGS_ENABLE_PUSH above 1');
      if (setting === SETTING.INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW)
          throw new ConnectionError(ERROR.FLOW_CONTROL_ERROR, 'SETTINGS_INITIAL_WINDOW_SIZE too large');
        // §6.9.2: open streams' windows move by the difference, possibly below zero.
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) {
          stream.sendWindow += delta;
          if (stream.sendWindow > MAX_WINDOW)
            throw new ConnectionError(ERROR.FLOW_CONTROL_ERROR, 'stream window overflow');
        }
      }
      if (setting === SETTING.MAX_FRAME_SIZE) {
        if (value < DEFAULT_MAX_FRAME || value > MAX_FRAME_LIMIT)
          throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'SETTINGS_MAX_FRAME_SIZE out of range');
        this.peerMaxFrame = value;
      }
      // The encoder never uses the dynamic table, but a decoder told to shrink its table waits for
      // the encoder to acknowledge the new limit: a size update to 0 (always within any limit)
      // opens the next header block (RFC 7541 §4.2, §6.3).
      if (setting === SETTING.HEADER_TABLE_SIZE) this.tableSizeUpdate = true;
    }
    if (!this.settingsSeen) {
      this.settingsSeen = true;
      clearTimeout(this.handshakeTimer);
    }
    this.push(frame(FRAME.SETTINGS, FLAG.ACK, 0));
    this.flushBlocked();
  }

  private onPing(flags: number, id: number, payload: Buffer): void {
    if (id !== 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'PING on a stream');
    if (payload.length !== 8) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, 'PING frame size');
    if (flags & FLAG.ACK) return;
    this.push(frame(FRAME.PING, FLAG.ACK, 0, payload));
  }

  private onGoAway(id: number, payload: Buffer): void {
    if (id !== 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'GOAWAY on a stream');
    if (payload.length < 8) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, 'GOAWAY frame size');
    // The peer opens no more streams; the connection ends when the open ones are answered.
    this.goingAway = true;
    this.endIfIdle();
  }

  private onWindowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, 'WINDOW_UPDATE frame size');
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (id === 0) {
      if (increment === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
      this.sendWindow += increment;
      if (this.sendWindow > MAX_WINDOW)
        throw new ConnectionError(ERROR.FLOW_CONTROL_ERROR, 'connection window overflow');
      this.flushBlocked();
      return;
    }
    if (this.isIdle(id)) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'WINDOW_UPDATE on an idle stream');
    const stream = this.streams.get(id);
    if (!stream) return;
    if (increment === 0) throw new StreamError(ERROR.PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
    stream.sendWindow += increment;
    if (stream.sendWindow > MAX_WINDOW) throw new StreamError(ERROR.FLOW_CONTROL_ERROR, 'stream window overflow');
    stream.flush();
  }

  private flushBlocked(): void {
    for (const stream of [...this.blocked]) {
      if (this.sendWindow <= 0) return;
      stream.flush();
    }
  }

  /** A connection error (§5.4.1): GOAWAY with the code, then the connection ends. */
  private fail(err: ConnectionError): void {
    this.push(this.goAwayFrame(err.code, err.message));
    this.flush();
    this.dead = true;
    this.socket.end();
    // A peer that never closes its side does not keep the socket.
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  private closed(): void {
    this.dead = true;
    clearTimeout(this.handshakeTimer);
    clearTimeout(this.idleTimer);
    for (const stream of [...this.receivedBy.keys()]) this.release(stream);
    for (const stream of [...this.streams.values()]) stream.abort();
    this.onGone(this);
  }
}

/** Adds `id` to a set of recent stream ids, dropping the oldest past RECENT_RESETS. */
function remember(recent: Set<number>, id: number): void {
  recent.add(id);
  if (recent.size > RECENT_RESETS) recent.delete(recent.values().next().value as number);
}

function flushLater(connection: H2Connection): void {
  connection.flush();
}
