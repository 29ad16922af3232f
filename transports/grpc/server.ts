/**
 * The gRPC transport (`--grpc-port`, default 9091) on @grpc/grpc-js: the
 * generated proto's public and admin services (one unary handler per operation, unary-call.ts),
 * server reflection, and the standard health service; cleartext by default, TLS when
 * `--grpc-tls-cert` and `--grpc-tls-key` are given (tls.ts). Errors are the kernel's
 * ServiceError mapped to a gRPC status with the message as details; anything else is INTERNAL
 * without detail. Deadlines (`grpc-timeout`), compressed requests, message size
 * limits and percent-encoded status messages are grpc-js's.
 */
import { Server, type MethodDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import type { Kernel } from '../../core/kernel.js';
import type { CompiledOperation } from '../../core/operations.js';
import { rateLimitKey } from '../http/rate-limit.js';
import { admissionInterceptor, type CallRateLimiter } from './admission.js';
import { parseTrustedProxies } from './client-ip.js';
import { addHealthService, loadHealthDefinition } from './health/service.js';
import { loadProtoText } from './load.js';
import { renderProto } from './proto.js';
import { ADMIN_SERVICE, PROTO_PACKAGE, PUBLIC_SERVICE, buildProtoModel, type ProtoModel } from './proto-model.js';
import { addReflection } from './reflection.js';
import { grpcTlsOf, serverCredentials, type GrpcTlsOptions } from './tls.js';
import { unaryHandler, type CallEnvironment, type UnaryRoute } from './unary-call.js';

export type { GrpcTlsOptions } from './tls.js';

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
  rateLimiter?: CallRateLimiter | null;
  /** Certificate chain and key (PEM text or file paths); null for cleartext; default from --grpc-tls-cert and --grpc-tls-key. */
  tls?: GrpcTlsOptions | null;
}

export interface GrpcServerHandle {
  /** The bound port (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * How long a unary request may take to arrive in full, deadline or not (admission.ts).
 */
export const REQUEST_READ_TIMEOUT_MS = 30_000;
/**
 * Streams one connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS, RFC 9113 §6.5.2):
 * the value the RFC recommends as the least (100), as most gRPC servers use.
 */
const MAX_CONCURRENT_STREAMS = 100;
/** A connection with no call open for this long is closed (GOAWAY). */
const IDLE_TIMEOUT_MS = 5 * 60_000;

const passThrough = (bytes: Buffer): Buffer => bytes;

/**
 * The generated services with byte-level handlers: grpc-js passes the request bytes through and
 * sends the bytes the handler encodes (unary-call.ts says why).
 */
function addGeneratedServices(
  server: Server,
  env: CallEnvironment,
  ops: CompiledOperation[],
  definition: PackageDefinition,
): void {
  const opByName = new Map(ops.map((op) => [op.def.name, op]));
  for (const [service, methods] of [
    [PUBLIC_SERVICE, env.model.publicMethods],
    [ADMIN_SERVICE, env.model.adminMethods],
  ] as const) {
    if (methods.length === 0) continue;
    const generated = definition[`${PROTO_PACKAGE}.${service}`] as Record<
      string,
      MethodDefinition<Record<string, unknown>, Record<string, unknown>>
    >;
    const serviceDefinition: Record<string, MethodDefinition<Buffer, Buffer>> = {};
    const implementation: UntypedServiceImplementation = {};
    for (const method of methods) {
      const def = generated[method.name];
      const route: UnaryRoute = {
        op: opByName.get(method.operation) as CompiledOperation,
        method,
        deserialize: (bytes) => def.requestDeserialize(bytes),
        serialize: (value) => def.responseSerialize(value),
      };
      serviceDefinition[method.name] = {
        path: def.path,
        requestStream: false,
        responseStream: false,
        requestSerialize: passThrough,
        requestDeserialize: passThrough,
        responseSerialize: passThrough,
        responseDeserialize: passThrough,
      };
      implementation[method.name] = unaryHandler(env, route);
    }
    server.addService(serviceDefinition, implementation);
  }
}

function bind(server: Server, host: string, port: number, tls: GrpcTlsOptions | null | undefined): Promise<number> {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const credentials = serverCredentials(tls);
  return new Promise((resolve, reject) => {
    server.bindAsync(address, credentials, (err, bound) => {
      if (err) reject(new Error(`gRPC server cannot listen on ${host}:${port}: ${err.message}`));
      else resolve(bound);
    });
  });
}

export async function startGrpcServer(
  kernel: Kernel,
  ops: CompiledOperation[],
  opts: GrpcServerOptions,
): Promise<GrpcServerHandle> {
  const model: ProtoModel = buildProtoModel(ops);
  const definition = loadProtoText(renderProto(model));
  const proxies = parseTrustedProxies(kernel.config.list('trusted-proxies'));
  const env: CallEnvironment = { kernel, model, proxies };
  const server = new Server({
    // The same request size bound as the HTTP body limit (bad input is a clear 4xx);
    // grpc-js applies it to compressed messages once inflated too.
    'grpc.max_receive_message_length': kernel.config.number('body-limit', 1_048_576),
    'grpc.max_concurrent_streams': MAX_CONCURRENT_STREAMS,
    'grpc.max_connection_idle_ms': opts.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    // Channelz's per-call counters serve a debugging service this server does not offer.
    'grpc.enable_channelz': 0,
    interceptors: [
      admissionInterceptor({
        limiter: opts.rateLimiter ?? null,
        keyOf: rateLimitKey,
        proxies,
        readTimeoutMs: opts.requestReadTimeoutMs ?? REQUEST_READ_TIMEOUT_MS,
      }),
    ],
  });
  addGeneratedServices(server, env, ops, definition);
  const healthDefinition = loadHealthDefinition();
  const health = addHealthService(server, healthDefinition, {
    services: [`${PROTO_PACKAGE}.${PUBLIC_SERVICE}`, `${PROTO_PACKAGE}.${ADMIN_SERVICE}`],
    ready: async () =>
      !(kernel.hasService('health') && kernel.service('health').draining) && (await kernel.storage.ping()),
  });
  addReflection(server, { ...definition, ...healthDefinition });
  const port = await bind(server, opts.host, opts.port, opts.tls !== undefined ? opts.tls : grpcTlsOf(kernel.config));

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      health.shutdown();
      // Stop accepting and let calls in flight finish (GOAWAY), then cut off what is left.
      const timer = setTimeout(() => server.forceShutdown(), opts.shutdownGraceMs ?? 2000);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  return { port, close: () => (closing ??= close()) };
}
