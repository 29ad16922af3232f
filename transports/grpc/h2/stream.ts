/**
 * One HTTP/2 stream as the gRPC layer sees it (RFC 9113 §5.1): the request's headers, its body
 * delivered through `onData`/`onEnd`, and a response written as headers, data and trailers.
 * Data the peer's flow-control window cannot take yet waits here (§6.9) and leaves, followed by
 * the trailers, as WINDOW_UPDATE frames open the window.
 *
 * A stream is closed once both sides have ended it, or either has reset it; `onClose` then runs
 * once. Writing to a closed or ended stream does nothing: the answer has nowhere to go.
 */
import type { H2Connection } from './connection.js';
import { ERROR } from './frames.js';
import { encodeHeaders, type OutgoingHeaders } from './hpack/encoder.js';

/** Request headers: a name's repeated values joined (`; ` for cookie), `set-cookie` kept as a list. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

export class H2Stream {
  onData: ((chunk: Buffer) => void) | undefined = undefined;
  onEnd: (() => void) | undefined = undefined;
  onClose: (() => void) | undefined = undefined;

  /** The peer has sent END_STREAM: the request body is complete. */
  remoteEnded = false;
  /** Both sides are done, or the stream was reset. */
  closed = false;
  /** Bytes this side may still send (§6.9.1); may go below zero when the peer shrinks windows. */
  sendWindow: number;
  /** Bytes the peer may still send before a WINDOW_UPDATE. */
  recvWindow: number;
  /** Bytes received since the last WINDOW_UPDATE this side sent for the stream. */
  recvConsumed = 0;
  /** The request's content-length, or -1 without one (§8.1.1; checked by the connection). */
  declaredLength = -1;
  /** Body bytes received so far, padding left out. */
  receivedBytes = 0;

  private headersSent = false;
  /** END_STREAM is sent, or queued behind data waiting for window. */
  private localEnded = false;
  private waiting: Buffer[] = [];
  private waitingTrailers: Buffer | undefined = undefined;

  constructor(
    private readonly connection: H2Connection,
    readonly id: number,
    readonly headers: RequestHeaders,
    sendWindow: number,
    recvWindow: number,
  ) {
    this.sendWindow = sendWindow;
    this.recvWindow = recvWindow;
  }

  get remoteAddress(): string {
    return this.connection.remoteAddress;
  }

  /** False once the stream is closed or this side has ended it. */
  get writable(): boolean {
    return !this.closed && !this.localEnded;
  }

  /** Sends the response header block; with `endStream` it is the whole response (§8.1). */
  respond(head: OutgoingHeaders, endStream: boolean): void {
    if (!this.writable || this.headersSent) return;
    this.headersSent = true;
    this.connection.sendHeaders(this.id, encodeHeaders(head), endStream);
    if (endStream) this.endLocally();
  }

  /** Sends body bytes as far as the flow-control windows allow; the rest waits for them. */
  write(data: Buffer): void {
    if (!this.writable || !this.headersSent) return;
    if (this.waiting.length > 0) {
      this.waiting.push(data);
      this.connection.hold(data.length);
      return;
    }
    const sent = this.connection.sendData(this, data);
    if (sent < data.length) this.wait(data.subarray(sent));
  }

  /** Ends the response with trailers: a header map, or a block already HPACK-encoded. */
  end(trailers: OutgoingHeaders | Buffer): void {
    if (!this.writable || !this.headersSent) return;
    const block = Buffer.isBuffer(trailers) ? trailers : encodeHeaders(trailers);
    this.localEnded = true;
    if (this.waiting.length > 0) {
      this.waitingTrailers = block;
      return;
    }
    this.connection.sendHeaders(this.id, block, true);
    this.endLocally();
  }

  /** Resets the stream (RST_STREAM, §6.4), ending it for both sides. */
  close(code: number): void {
    if (this.closed) return;
    this.connection.resetStream(this.id, code);
    this.finish();
  }

  // ---- called by the connection ----

  /** The windows grew: send what was waiting, then the trailers if they were waiting too. */
  flush(): void {
    while (this.waiting.length > 0 && !this.closed) {
      const data = this.waiting[0]!;
      const sent = this.connection.sendData(this, data);
      this.connection.hold(-sent);
      if (sent < data.length) {
        this.waiting[0] = data.subarray(sent);
        return;
      }
      this.waiting.shift();
    }
    if (this.waiting.length === 0) this.connection.unblock(this);
    if (this.waitingTrailers && !this.closed) {
      const block = this.waitingTrailers;
      this.waitingTrailers = undefined;
      this.connection.sendHeaders(this.id, block, true);
      this.endLocally();
    }
  }

  receiveData(chunk: Buffer): void {
    const onData = this.onData;
    if (chunk.length === 0 || !onData) return;
    try {
      onData(chunk);
    } catch (err) {
      this.handlerFailed(err as Error);
    }
  }

  /** The peer sent END_STREAM on a DATA frame or on trailers. */
  receiveEnd(): void {
    if (this.remoteEnded) return;
    this.remoteEnded = true;
    this.deliverEnd();
  }

  /**
   * The request's first HEADERS frame carried END_STREAM: the stream is known to be half-closed
   * before the handler sees it (so an answer it gives at once needs no reset), and `onEnd` runs
   * once the handler has set it.
   */
  openedEnded(): void {
    this.remoteEnded = true;
  }

  deliverOpenedEnd(): void {
    this.deliverEnd();
  }

  private deliverEnd(): void {
    const onEnd = this.onEnd;
    if (!onEnd) return;
    try {
      onEnd();
    } catch (err) {
      this.handlerFailed(err as Error);
    }
  }

  /**
   * A fault in this stream's handler ends this stream (RST_STREAM INTERNAL_ERROR) and is
   * reported; the connection's other streams, which a gRPC client multiplexes over it, go on.
   */
  private handlerFailed(err: Error): void {
    this.connection.reportProblem(err);
    this.close(ERROR.INTERNAL_ERROR);
  }

  /** The peer reset the stream, or the connection is gone. */
  abort(): void {
    this.finish();
  }

  private wait(rest: Buffer): void {
    this.waiting.push(rest);
    this.connection.block(this);
    this.connection.hold(rest.length);
  }

  /**
   * This side's END_STREAM is sent, so the stream is over for the handler. A complete response may
   * come before the whole request (RFC 9113 §8.1, e.g. an oversized message refused at once): the
   * stream is then reset with NO_ERROR so the peer stops sending.
   */
  private endLocally(): void {
    this.localEnded = true;
    if (!this.remoteEnded) this.connection.resetStream(this.id, ERROR.NO_ERROR);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    let held = 0;
    for (const data of this.waiting) held += data.length;
    this.connection.hold(-held);
    this.waiting = [];
    this.waitingTrailers = undefined;
    this.connection.forget(this);
    const onClose = this.onClose;
    this.onClose = this.onData = this.onEnd = undefined;
    onClose?.();
  }
}
