/**
 * One unary call, as a pipeline of named steps (DESIGN.md §3):
 *   read the request (exactly one length-prefixed message, within the size limit)
 *   -> decode it (a strict pass over the bytes: wire/check-message.ts; protobuf; the codec's JSON shape)
 *   -> build the context from metadata -> kernel.invokeCompiled
 *   -> encode the response -> send it with the context's effects as metadata.
 * A `grpc-timeout` ends the call with DEADLINE_EXCEEDED when it passes first; a peer that resets
 * the stream ends it silently. Every failure is a Trailers-Only answer (respond.ts).
 *
 * A class rather than closures: one object per call, its steps shared on the prototype.
 */
import type { RequestContext } from '../../core/context.js';
import type { Kernel } from '../../core/kernel.js';
import type { CompiledOperation } from '../../core/operations.js';
import { addEffects, contextFromCall, responseHead } from './call-context.js';
import type { Cidr } from './client-ip.js';
import type { H2Stream } from './h2/stream.js';
import { decodeRequest, encodeResponse } from './codec.js';
import { messageProblem } from './wire/check-message.js';
import type { ProtoMethod, ProtoModel } from './proto-model.js';
import { sendStatusOnly, sendUnary, statusOf } from './respond.js';
import { messageBytes } from './wire/compression.js';
import { GrpcFailure } from './wire/failure.js';
import { frameMessage, MessageReader } from './wire/messages.js';
import { GRPC_STATUS } from './wire/status.js';

type WireObject = Record<string, unknown>;

/**
 * How long a unary request may take to arrive in full, deadline or not: a peer that opens calls
 * and trickles their bytes would otherwise hold each one open for good (the HTTP transport bounds
 * the same with Node's request timeout).
 */
export const REQUEST_READ_TIMEOUT_MS = 30_000;

export interface UnaryRoute {
  op: CompiledOperation;
  method: ProtoMethod;
  deserialize(bytes: Buffer): WireObject;
  serialize(value: WireObject): Buffer;
  /** The framed answer of an operation with `constantOutput`, made by its first success. */
  constantFrame?: Buffer;
}

export interface CallEnvironment {
  kernel: Kernel;
  model: ProtoModel;
  proxies: readonly Cidr[];
  /** Largest request message accepted, in bytes (`--body-limit`). */
  limit: number;
  /** How long a request may take to arrive in full (REQUEST_READ_TIMEOUT_MS unless a test says less). */
  readTimeoutMs: number;
}

class UnaryCall {
  private readonly reader: MessageReader;
  private request: Buffer | undefined = undefined;
  private ctx: RequestContext | undefined = undefined;
  private done = false;
  private timer: NodeJS.Timeout | undefined = undefined;
  private readTimer: NodeJS.Timeout | undefined = undefined;

  constructor(
    private readonly env: CallEnvironment,
    private readonly route: UnaryRoute,
    private readonly stream: H2Stream,
  ) {
    this.reader = new MessageReader(env.limit);
  }

  /** Step 1: collect the one request message. */
  receive(chunk: Buffer): void {
    if (this.done) return;
    try {
      for (const message of this.reader.push(chunk)) {
        if (this.request !== undefined)
          throw new GrpcFailure(GRPC_STATUS.INVALID_ARGUMENT, 'a unary call takes exactly one request message');
        this.request = messageBytes(message, this.stream.headers['grpc-encoding'], this.env.limit);
      }
    } catch (err) {
      this.fail(err);
    }
  }

  /** The request is complete: steps 2 and 3, decode and invoke. */
  requestEnded(): void {
    clearTimeout(this.readTimer);
    if (this.done) return;
    if (this.reader.partial)
      return this.fail(new GrpcFailure(GRPC_STATUS.INVALID_ARGUMENT, 'request ended inside a message'));
    if (this.request === undefined)
      return this.fail(new GrpcFailure(GRPC_STATUS.INVALID_ARGUMENT, 'a unary call takes exactly one request message'));
    let input: unknown;
    try {
      input = this.decode(this.request);
    } catch (err) {
      return this.fail(err);
    }
    this.ctx = contextFromCall(this.env.kernel, this.stream.headers, this.stream.remoteAddress, this.env.proxies);
    this.env.kernel.invokeCompiled(this.route.op, this.ctx, input).then(
      (output) => this.succeed(output),
      (err: unknown) => this.fail(err),
    );
  }

  private decode(bytes: Buffer): unknown {
    const problem = messageProblem(this.env.model, this.route.method.request, bytes);
    if (problem)
      throw new GrpcFailure(
        GRPC_STATUS.INVALID_ARGUMENT,
        `request is not a valid ${this.route.method.request} message: ${problem}`,
      );
    let wire: WireObject;
    try {
      wire = this.route.deserialize(bytes);
    } catch {
      throw new GrpcFailure(
        GRPC_STATUS.INVALID_ARGUMENT,
        `request is not a valid ${this.route.method.request} message`,
      );
    }
    return decodeRequest(this.env.model, this.route.method, wire);
  }

  /** Steps 4 and 5: encode the answer and send it with the context's effects. */
  private succeed(output: unknown): void {
    if (this.done) return;
    let frame: Buffer;
    try {
      frame = this.route.constantFrame ?? this.encode(output);
    } catch (err) {
      return this.fail(err);
    }
    this.finish();
    sendUnary(this.stream, addEffects(responseHead(), this.ctx as RequestContext), frame);
  }

  private encode(output: unknown): Buffer {
    const frame = frameMessage(this.route.serialize(encodeResponse(this.env.model, this.route.method, output)));
    if (this.route.op.def.constantOutput === true) this.route.constantFrame = frame;
    return frame;
  }

  fail(err: unknown): void {
    if (!this.finish()) return;
    // Effects set before a failure (a cleared cookie) still reach the client, as over HTTP.
    const head = this.ctx ? addEffects(responseHead(), this.ctx) : responseHead();
    sendStatusOnly(this.stream, head, statusOf(err, this.env.kernel.logger, { operation: this.route.op.def.name }));
  }

  /** Marks the call answered (or abandoned); false when it already was. */
  finish(): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    clearTimeout(this.readTimer);
    return true;
  }

  startReadTimer(ms: number): void {
    this.readTimer = setTimeout(
      () => this.fail(new GrpcFailure(GRPC_STATUS.DEADLINE_EXCEEDED, `request not received within ${ms} ms`)),
      ms,
    );
  }

  startDeadline(ms: number): void {
    this.timer = setTimeout(() => this.fail(new GrpcFailure(GRPC_STATUS.DEADLINE_EXCEEDED, 'deadline exceeded')), ms);
  }
}

export function serveUnary(
  env: CallEnvironment,
  route: UnaryRoute,
  stream: H2Stream,
  timeoutMs: number | undefined,
): void {
  const call = new UnaryCall(env, route, stream);
  call.startReadTimer(env.readTimeoutMs);
  stream.onData = (chunk: Buffer) => call.receive(chunk);
  stream.onEnd = () => call.requestEnded();
  // Reset by the peer (a cancelled call) or answered: the timers no longer matter.
  stream.onClose = () => call.finish();
  if (timeoutMs !== undefined) call.startDeadline(timeoutMs);
}
