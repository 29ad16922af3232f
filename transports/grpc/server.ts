/**
 * The gRPC transport (SPEC.md "Transports": `--grpc-port`, default 9091): the generated proto's
 * public and admin services plus server reflection, served over cleartext HTTP/2 (h2c) with
 * node:http2 following grpc/doc/PROTOCOL-HTTP2.md. Each generated method is one unary pipeline
 * (unary-call.ts); errors are the kernel's ServiceError mapped to a gRPC status with the message
 * as details; anything else is INTERNAL without detail (DESIGN.md §3).
 *
 * Why not @grpc/grpc-js's Server (which DESIGN.md names): measured on the kernel bench, grpc-js
 * answering prebuilt bytes with no kernel at all reached only 44-50% of a bare Fastify route, below
 * the 60% the transport must reach; node:http2 alone answering the same reached 85-90%. The
 * protocol a unary server needs is small (framing, status trailers, metadata, deadlines,
 * compression), and grpc-js remains the client every test talks to this server with.
 */
import { createServer, type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { MethodDefinition } from '@grpc/proto-loader';
import type { Kernel } from '../../core/kernel.js';
import type { CompiledOperation } from '../../core/operations.js';
import { responseHead } from './call-context.js';
import { parseTrustedProxies, socketAddress } from './client-ip.js';
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
}

export interface GrpcServerHandle {
  /** The bound port (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

type WireObject = Record<string, unknown>;
type Route = { kind: 'unary'; unary: UnaryRoute } | { kind: 'stream'; stream: StreamingMethod };

/** Streams one connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS, RFC 9113 §6.5.2). */
const MAX_CONCURRENT_STREAMS = 1000;

function routeTable(ops: CompiledOperation[]): { model: ProtoModel; routes: Map<string, Route> } {
  const model = buildProtoModel(ops);
  const definition = loadProtoText(renderProto(model));
  const opByName = new Map(ops.map((op) => [op.def.name, op]));
  const routes = new Map<string, Route>();
  for (const method of [...model.publicMethods, ...model.adminMethods]) {
    const def = (definition[`${PROTO_PACKAGE}.${method.service}`] as Record<string, MethodDefinition<WireObject, WireObject>>)[method.name];
    const op = opByName.get(method.operation) as CompiledOperation;
    routes.set(def.path, { kind: 'unary', unary: { op, method, deserialize: def.requestDeserialize, serialize: def.responseSerialize } });
  }
  for (const stream of reflectionMethods(definition)) routes.set(stream.path, { kind: 'stream', stream });
  return { model, routes };
}

/** A reset from the peer surfaces as an error on the stream; the call is simply over. */
function ignoreStreamError(): void {}

/** `application/grpc`, optionally `+proto` or with parameters; other `+format`s are not served. */
function isProtobuf(contentType: string): boolean {
  const rest = contentType.slice('application/grpc'.length);
  return rest === '' || rest.startsWith('+proto') || rest.startsWith(';');
}

function listen(server: ReturnType<typeof createServer>, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(new Error(`gRPC server cannot listen on ${host}:${port}: ${err.message}`));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

export async function startGrpcServer(kernel: Kernel, ops: CompiledOperation[], opts: GrpcServerOptions): Promise<GrpcServerHandle> {
  const { model, routes } = routeTable(ops);
  const env: CallEnvironment = {
    model,
    kernel,
    proxies: parseTrustedProxies(kernel.config.list('trusted-proxies')),
    // The same request size bound as the HTTP body limit (DESIGN.md §5: bad input is a clear 4xx).
    limit: kernel.config.number('body-limit', 1_048_576),
    readTimeoutMs: opts.requestReadTimeoutMs ?? REQUEST_READ_TIMEOUT_MS,
  };
  /** Open connections and their peer address (read once per connection, not per call). */
  const sessions = new Map<ServerHttp2Session, string>();
  const server = createServer({ settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS } });

  server.on('session', (session: ServerHttp2Session) => {
    sessions.set(session, socketAddress(session.socket?.remoteAddress));
    session.on('close', () => sessions.delete(session));
    session.on('error', (err) => kernel.logger.debug({ err, transport: 'grpc' }, 'gRPC connection error'));
  });
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', ignoreStreamError);
    if (headers[':method'] !== 'POST') {
      stream.respond({ ':status': 405, allow: 'POST' }, { endStream: true });
      return;
    }
    const contentType = headers['content-type'];
    if (typeof contentType !== 'string' || !contentType.startsWith('application/grpc')) {
      // PROTOCOL-HTTP2.md: a request that is not gRPC at all gets HTTP 415.
      stream.respond({ ':status': 415 }, { endStream: true });
      return;
    }
    const path = headers[':path'] ?? '';
    try {
      if (!isProtobuf(contentType)) throw new GrpcFailure(GRPC_STATUS.UNIMPLEMENTED, `unsupported content-type ${contentType}`);
      checkEncoding(headers['grpc-encoding']);
      const timeoutMs = parseTimeout(headers['grpc-timeout']);
      const route = routes.get(path);
      if (!route) throw new GrpcFailure(GRPC_STATUS.UNIMPLEMENTED, `unknown method ${path}`);
      if (route.kind === 'unary') serveUnary(env, route.unary, stream, headers, sessions.get(stream.session as ServerHttp2Session) ?? 'unknown', timeoutMs);
      else serveStream(route.stream, stream, headers, env.limit, kernel.logger, timeoutMs);
    } catch (err) {
      sendStatusOnly(stream, responseHead(), statusOf(err, kernel.logger, { path }));
    }
  });

  const port = await listen(server, opts.host, opts.port);
  let closing: Promise<void> | undefined;
  const shutdown = (graceMs: number) =>
    new Promise<void>((resolve) => {
      // Stop accepting connections; ask each open one to finish its calls (GOAWAY), then cut off
      // whatever is still running when the grace period ends.
      const force = setTimeout(() => {
        for (const session of sessions.keys()) session.destroy();
      }, graceMs);
      server.close(() => {
        clearTimeout(force);
        resolve();
      });
      for (const session of sessions.keys()) session.close();
    });
  return {
    port,
    close: () => (closing ??= shutdown(opts.shutdownGraceMs ?? 2000)),
  };
}
