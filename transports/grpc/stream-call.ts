/**
 * Streaming methods hosted by the transport rather than generated from operations: today only
 * server reflection (reflection.ts). The handler sees a duplex call with the events and methods
 * of grpc-js's ServerDuplexStream that such handlers use: `data` and `end` events, `write` and
 * `end`. Responses are written as they come; the status goes in the trailers at the end.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from '../../core/logger.js';
import { responseHead } from './call-context.js';
import type { H2Stream } from './h2/stream.js';
import { sendStatusOnly, statusHeaders, statusOf, type StatusAnswer } from './respond.js';
import { messageBytes } from './wire/compression.js';
import { GrpcFailure } from './wire/failure.js';
import { frameMessage, MessageReader } from './wire/messages.js';
import { GRPC_STATUS } from './wire/status.js';

export interface StreamingMethod {
  path: string;
  deserialize(bytes: Buffer): unknown;
  serialize(value: unknown): Buffer;
  handle(call: StreamCall): void;
}

const OK: StatusAnswer = { status: GRPC_STATUS.OK, message: '' };

export class StreamCall extends EventEmitter {
  private headSent = false;
  private ended = false;

  constructor(
    private readonly stream: H2Stream,
    private readonly serialize: (value: unknown) => Buffer,
  ) {
    super();
  }

  write(message: unknown): boolean {
    if (this.ended || !this.stream.writable) return false;
    if (!this.headSent) {
      this.headSent = true;
      this.stream.respond(responseHead(), false);
    }
    this.stream.write(frameMessage(this.serialize(message)));
    return true;
  }

  /** Ends the call with OK, or with the given status. */
  end(answer: StatusAnswer = OK): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.headSent) {
      sendStatusOnly(this.stream, responseHead(), answer);
      return;
    }
    this.stream.end(statusHeaders({}, answer));
  }
}

export function serveStream(
  method: StreamingMethod,
  stream: H2Stream,
  limit: number,
  logger: Logger,
  timeoutMs: number | undefined,
): void {
  const call = new StreamCall(stream, method.serialize);
  const fail = (err: unknown) => call.end(statusOf(err, logger, { method: method.path }));
  const reader = new MessageReader(limit);
  try {
    method.handle(call);
  } catch (err) {
    fail(err);
    return;
  }
  stream.onData = (chunk: Buffer) => {
    try {
      for (const message of reader.push(chunk))
        call.emit('data', method.deserialize(messageBytes(message, stream.headers['grpc-encoding'], limit)));
    } catch (err) {
      fail(
        err instanceof GrpcFailure
          ? err
          : new GrpcFailure(GRPC_STATUS.INVALID_ARGUMENT, 'request message could not be decoded'),
      );
    }
  };
  stream.onEnd = () => {
    if (reader.partial) fail(new GrpcFailure(GRPC_STATUS.INVALID_ARGUMENT, 'request ended inside a message'));
    else call.emit('end');
  };
  if (timeoutMs !== undefined) {
    const timer = setTimeout(
      () => fail(new GrpcFailure(GRPC_STATUS.DEADLINE_EXCEEDED, 'deadline exceeded')),
      timeoutMs,
    );
    stream.onClose = () => clearTimeout(timer);
  }
}
