/**
 * One generated method as a grpc-js unary handler, a pipeline of named steps:
 *   decode the request bytes (a strict pass over them: check-message.ts; protobuf; the codec's JSON shape)
 *   -> build the context from metadata -> kernel.invokeCompiled
 *   -> encode the response -> answer with the context's effects as initial metadata.
 *
 * grpc-js hands the handler the request's bytes untouched (the method is registered with a
 * pass-through deserializer): a deserializer that throws makes grpc-js answer INTERNAL, while a
 * malformed message is the caller's mistake, INVALID_ARGUMENT naming what is wrong.
 */
import type { Metadata, ServerUnaryCall, handleUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { Kernel } from '../../core/kernel.js';
import type { CompiledOperation } from '../../core/operations.js';
import { contextFromCall, effectsMetadata } from './call-context.js';
import { messageProblem } from './check-message.js';
import type { Cidr } from './client-ip.js';
import { decodeRequest, encodeResponse } from './codec.js';
import type { ProtoMethod, ProtoModel } from './proto-model.js';
import { statusOf } from './respond.js';

type WireObject = Record<string, unknown>;

export interface UnaryRoute {
  op: CompiledOperation;
  method: ProtoMethod;
  deserialize(bytes: Buffer): WireObject;
  serialize(value: WireObject): Buffer;
  /** The encoded answer of an operation with `constantOutput`, made by its first success. */
  constantAnswer?: Buffer;
}

export interface CallEnvironment {
  kernel: Kernel;
  model: ProtoModel;
  proxies: readonly Cidr[];
}

/** Step 1: the request bytes as the operation's input. */
function decode(env: CallEnvironment, route: UnaryRoute, bytes: Buffer): unknown {
  const problem = messageProblem(env.model, route.method.request, bytes);
  if (problem)
    throw new ServiceError('invalid_argument', `request is not a valid ${route.method.request} message: ${problem}`);
  let wire: WireObject;
  try {
    wire = route.deserialize(bytes);
  } catch {
    throw new ServiceError('invalid_argument', `request is not a valid ${route.method.request} message`);
  }
  return decodeRequest(env.model, route.method, wire);
}

/** Step 4: the operation's output as response bytes (kept when the operation's output never changes). */
function encode(env: CallEnvironment, route: UnaryRoute, output: unknown): Buffer {
  if (route.constantAnswer) return route.constantAnswer;
  const bytes = route.serialize(encodeResponse(env.model, route.method, output));
  if (route.op.def.constantOutput === true) route.constantAnswer = bytes;
  return bytes;
}

/** Step 5: effects set by the operation (cookies, even a cleared one on failure) go out as initial metadata. */
function sendEffects(call: ServerUnaryCall<Buffer, Buffer>, ctx: RequestContext | undefined): void {
  const md: Metadata | null = ctx ? effectsMetadata(ctx) : null;
  if (md) call.sendMetadata(md);
}

/** The grpc-js handler of one generated method: steps 1-5 above. */
export function unaryHandler(env: CallEnvironment, route: UnaryRoute): handleUnaryCall<Buffer, Buffer> {
  const fail = (
    call: ServerUnaryCall<Buffer, Buffer>,
    ctx: RequestContext | undefined,
    err: unknown,
    answer: sendUnaryData<Buffer>,
  ) => {
    sendEffects(call, ctx);
    answer(statusOf(err, env.kernel.logger, { operation: route.op.def.name }));
  };
  return (call: ServerUnaryCall<Buffer, Buffer>, answer: sendUnaryData<Buffer>): void => {
    let input: unknown;
    try {
      input = decode(env, route, call.request);
    } catch (err) {
      fail(call, undefined, err, answer);
      return;
    }
    const ctx = contextFromCall(env.kernel, call, env.proxies);
    env.kernel.invokeCompiled(route.op, ctx, input).then(
      (output) => {
        let bytes: Buffer;
        try {
          bytes = encode(env, route, output);
        } catch (err) {
          fail(call, ctx, err, answer);
          return;
        }
        sendEffects(call, ctx);
        answer(null, bytes);
      },
      (err: unknown) => fail(call, ctx, err, answer),
    );
  };
}
