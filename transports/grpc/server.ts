/**
 * The gRPC transport (SPEC.md "Transports": `--grpc-port`, default 9091): the generated proto's
 * public and admin services plus server reflection, served over cleartext HTTP/2 (h2c) following
 * grpc/doc/PROTOCOL-HTTP2.md. Each generated method is one unary pipeline (unary-call.ts); errors
 * are the kernel's ServiceError mapped to a gRPC status with the message as details; anything else
 * is INTERNAL without detail (DESIGN.md §3).
 *
 * Why not @grpc/grpc-js's Server (which DESIGN.md names), nor node:http2: measured on the kernel
 * bench (see README, "Where the build departs from DESIGN.md"), grpc-js answering prebuilt bytes
 * with no kernel at all reached 30-50% of a bare Fastify route and node:http2 alone 46-90%
 * depending on the machine, against the 60% the transport must reach. Both spend most of a call
 * on per-stream objects and crossings into native code. The HTTP/2 a gRPC server needs is small
 * and is written here (h2/: framing, HPACK, flow control, limits); grpc-js remains the client
 * every test talks to this server with, and node:http2's client drives the protocol-edge tests.
 */
import type { MethodDefinition } from '@grpc/proto-loader';
import type { Kernel } from '../../core/kernel.js';
import type { CompiledOperation } from '../../core/operations.js';
import { responseHead } from './call-context.js';
import { clientIp, parseTrustedProxies, socketAddress } from './client-ip.js';
import { startH2Server } from './h2/server.js';
import { ReceiveBudget } from './h2/connection.js';
import { rateLimitKey, type IpRateLimiter } from '../http/rate-limit.js';
import type { H2Stream } from './h2/stream.js';
import { loadProtoText } from './load.js';
import { renderProto } from './proto.js';
import { PROTO_PACKAGE, buildProtoModel, type ProtoModel } from './proto-model.js';
import { reflectionMethods } from './reflection.js';
import { sendStatusOnly, statusOf } from './respond.js';
import { serveStream, type StreamingMethod } from './stream-call.js';
import { REQUEST_READ_TIMEOUT_MS, serveUnary, type CallEnvironment, type UnaryRoute } from './unary-call.js';
import { checkEncoding } from './wire/compression.js';
import { GrpcFailure } from './wire/failure.js';
import { GRPC_STATUS } from './wire/status.js';
import { parseTimeout } from './wire/timeout.js';

export interface GrpcServerOptions {
  host: string;
  port: number;
  /** How long close() lets in-flight calls finish before cutting them off; default 2000 ms. */
  shutdownGraceMs?: number;
  /** How long a unary request may take to arrive in full; default REQUEST_READ_TIMEOUT_MS (30 s). */
  requestReadTimeoutMs?: number;
  /** How long an idle connection stays open; default IDLE_TIMEOUT_MS (5 min). */
  idleTimeoutMs?: number;
  /** The per-IP limiter the HTTP transport uses too (one budget per client over every transport); none when off. */
  rateLimiter?: IpRateLimiter | null;
}

export interface GrpcServerHandle {
  /** The bound port (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

type WireObject = Record<string, unknown>;
type Route = { kind: 'unary'; unary: UnaryRoute } | { kind: 'stream'; stream: StreamingMethod };

/**
 * Streams one connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS, RFC 9113 §6.5.2):
 * the value the RFC recommends as the least (100), as most gRPC servers use; 1000 let one
 * connection hold a thousand unfinished requests (review finding).
 */
const MAX_CONCURRENT_STREAMS = 100;
/** Request bytes held for unfinished streams: per connection, and over all connections (h2/connection.ts ReceiveBudget). */
const MAX_RECEIVED_PER_CONNECTION = 32 * 1024 * 1024;
/**
 * The largest request message of a streaming method (server reflection asks for a file or a
 * symbol by name): such a stream has no read deadline, so what it may hold unfinished is small.
 */
const MAX_STREAMING_MESSAGE = 64 * 1024;
const MAX_RECEIVED_TOTAL = 256 * 1024 * 1024;
/** A connection with no call open and none started for this long is closed (GOAWAY). */
const IDLE_TIMEOUT_MS = 5 * 60_000;
/** Request metadata bound (SETTINGS_MAX_HEADER_LIST_SIZE): 64 KiB, above grpc-js's own 8 KiB default. */
const MAX_HEADER_LIST_SIZE = 65_536;
/** A new connection must send its preface and SETTINGS within this time. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Response bytes a connection may leave unread before it is dropped. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

function routeTable(ops: CompiledOperation[]): { model: ProtoModel; routes: Map<string, Route> } {
  const model = buildProtoModel(ops);
  const definition = loadProtoText(renderProto(model));
  const opByName = new Map(ops.map((op) => [op.def.name, op]));
  const routes = new Map<string, Route>();
  for (const method of [...model.publicMethods, ...model.adminMethods]) {
    const def = (
      definition[`${PROTO_PACKAGE}.${method.service}`] as Record<string, MethodDefinition<WireObject, WireObject>>
    )[method.name];
    const op = opByName.get(method.operation) as CompiledOperation;
    routes.set(def.path, {
      kind: 'unary',
      unary: { op, method, deserialize: def.requestDeserialize, serialize: def.responseSerialize },
    });
  }
  for (const stream of reflectionMethods(definition)) routes.set(stream.path, { kind: 'stream', stream });
  return { model, routes };
}

/** `application/grpc`, optionally `+proto` or with parameters; other `+format`s are not served. */
function isProtobuf(contentType: string): boolean {
  const rest = contentType.slice('application/grpc'.length);
  return rest === '' || rest.startsWith('+proto') || rest.startsWith(';');
}

export async function startGrpcServer(
  kernel: Kernel,
  ops: CompiledOperation[],
  opts: GrpcServerOptions,
): Promise<GrpcServerHandle> {
  const { model, routes } = routeTable(ops);
  const limiter = opts.rateLimiter ?? null;
  const env: CallEnvironment = {
    model,
    kernel,
    proxies: parseTrustedProxies(kernel.config.list('trusted-proxies')),
    // The same request size bound as the HTTP body limit (DESIGN.md §5: bad input is a clear 4xx).
    limit: kernel.config.number('body-limit', 1_048_576),
    readTimeoutMs: opts.requestReadTimeoutMs ?? REQUEST_READ_TIMEOUT_MS,
  };
  const server = await startH2Server({
    host: opts.host,
    port: opts.port,
    limits: {
      maxConcurrentStreams: MAX_CONCURRENT_STREAMS,
      maxHeaderListSize: MAX_HEADER_LIST_SIZE,
      handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
      maxBufferedBytes: MAX_BUFFERED_BYTES,
      // At least a few whole messages per connection, whatever --body-limit says.
      received: new ReceiveBudget(
        Math.max(MAX_RECEIVED_PER_CONNECTION, 4 * env.limit),
        Math.max(MAX_RECEIVED_TOTAL, 16 * env.limit),
      ),
      idleTimeoutMs: opts.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    },
    onStream: (stream) => route(stream),
    addressOf: socketAddress,
    onProblem: (err) => kernel.logger.debug({ err, transport: 'grpc' }, 'gRPC connection error'),
  }).catch((err: Error) => {
    throw new Error(`gRPC server cannot listen on ${opts.host}:${opts.port}: ${err.message}`);
  });

  function route(stream: H2Stream): void {
    const headers = stream.headers;
    if (headers[':method'] !== 'POST') {
      stream.respond({ ':status': 405, allow: 'POST' }, true);
      return;
    }
    const contentType = headers['content-type'];
    if (typeof contentType !== 'string' || !contentType.startsWith('application/grpc')) {
      // PROTOCOL-HTTP2.md: a request that is not gRPC at all gets HTTP 415.
      stream.respond({ ':status': 415 }, true);
      return;
    }
    const path = headers[':path'] as string;
    try {
      const forwarded = headers['x-forwarded-for'];
      const retry = limiter
        ? limiter.hit(
            rateLimitKey(
              clientIp(stream.remoteAddress, typeof forwarded === 'string' ? forwarded : undefined, env.proxies),
            ),
          )
        : 0;
      // The same answer as REST's 429: when to try again, in seconds, as metadata.
      if (retry > 0)
        throw new GrpcFailure(GRPC_STATUS.RESOURCE_EXHAUSTED, 'too many requests', { 'retry-after': String(retry) });
      if (!isProtobuf(contentType))
        throw new GrpcFailure(GRPC_STATUS.UNIMPLEMENTED, `unsupported content-type ${contentType}`);
      checkEncoding(headers['grpc-encoding']);
      const timeoutMs = parseTimeout(headers['grpc-timeout']);
      const found = routes.get(path);
      if (!found) throw new GrpcFailure(GRPC_STATUS.UNIMPLEMENTED, `unknown method ${path}`);
      if (found.kind === 'unary') serveUnary(env, found.unary, stream, timeoutMs);
      else serveStream(found.stream, stream, Math.min(env.limit, MAX_STREAMING_MESSAGE), kernel.logger, timeoutMs);
    } catch (err) {
      sendStatusOnly(stream, responseHead(), statusOf(err, kernel.logger, { path }));
    }
  }

  let closing: Promise<void> | undefined;
  return {
    port: server.port,
    // Stop accepting; ask each connection to finish its calls (GOAWAY), then cut off what is left.
    close: () => (closing ??= server.close(opts.shutdownGraceMs ?? 2000)),
  };
}
