/**
 * The gRPC transport (SPEC.md "Transports": `--grpc-port`, default 9091): the generated proto's
 * public and admin services served with @grpc/grpc-js, plus server reflection. Every method is
 * one unary pipeline: context from metadata -> decode request -> kernel.invokeCompiled ->
 * encode response -> effects as metadata. Errors are the kernel's ServiceError mapped to a gRPC
 * status with the message as details; anything else is INTERNAL without detail (DESIGN.md §3).
 */
import { Server, ServerCredentials, status as grpcStatus, type ServerUnaryCall, type ServiceDefinition, type sendUnaryData, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { ServiceError } from '../../core/errors.js';
import type { Kernel } from '../../core/kernel.js';
import type { CompiledOperation } from '../../core/operations.js';
import { parseTrustedProxies, type Cidr } from './client-ip.js';
import { contextFromCall, effectsMetadata, headersMetadata } from './call-context.js';
import { decodeRequest, encodeResponse } from './codec.js';
import { loadProtoText } from './load.js';
import { renderProto } from './proto.js';
import { ADMIN_SERVICE, PROTO_PACKAGE, PUBLIC_SERVICE, buildProtoModel, type ProtoMethod, type ProtoModel } from './proto-model.js';

export interface GrpcServerOptions {
  host: string;
  port: number;
  /** How long close() lets in-flight calls finish before cutting them off; default 2000 ms. */
  shutdownGraceMs?: number;
}

export interface GrpcServerHandle {
  /** The bound port (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

type WireObject = Record<string, unknown>;

function errorStatus(kernel: Kernel, op: CompiledOperation, err: unknown) {
  if (err instanceof ServiceError) {
    return { code: err.status.grpc, details: err.message, metadata: headersMetadata(err.headers) };
  }
  kernel.logger.error({ err, operation: op.def.name, transport: 'grpc' }, 'gRPC call failed');
  return { code: grpcStatus.INTERNAL, details: '' };
}

function unaryMethod(kernel: Kernel, model: ProtoModel, method: ProtoMethod, op: CompiledOperation, proxies: readonly Cidr[]) {
  return (call: ServerUnaryCall<WireObject, WireObject>, callback: sendUnaryData<WireObject>): void => {
    const ctx = contextFromCall(kernel, call, proxies);
    const run = async (): Promise<WireObject> => {
      const input = decodeRequest(model, method, call.request);
      const output = await kernel.invokeCompiled(op, ctx, input);
      return encodeResponse(model, method, output);
    };
    run().then(
      (response) => {
        call.sendMetadata(effectsMetadata(ctx));
        callback(null, response);
      },
      (err: unknown) => {
        // Effects set before the failure (a cleared cookie) still reach the client, as over HTTP.
        if (ctx.setCookies.length > 0 || Object.keys(ctx.responseHeaders).length > 0) call.sendMetadata(effectsMetadata(ctx));
        callback(errorStatus(kernel, op, err));
      },
    );
  };
}

function bindAddress(host: string, port: number): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${h}:${port}`;
}

function bind(server: Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (err, port) => {
      if (err) reject(new Error(`gRPC server cannot listen on ${address}: ${err.message}`));
      else resolve(port);
    });
  });
}

function shutdown(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

export async function startGrpcServer(kernel: Kernel, ops: CompiledOperation[], opts: GrpcServerOptions): Promise<GrpcServerHandle> {
  const model = buildProtoModel(ops);
  const definition = loadProtoText(renderProto(model));
  const proxies = parseTrustedProxies(kernel.config.list('trusted-proxies'));
  const opByName = new Map(ops.map((op) => [op.def.name, op]));
  const server = new Server({
    // The same request size bound as the HTTP body limit (DESIGN.md §5: bad input is a clear 4xx).
    'grpc.max_receive_message_length': kernel.config.number('body-limit', 1_048_576),
  });
  for (const [service, methods] of [
    [PUBLIC_SERVICE, model.publicMethods],
    [ADMIN_SERVICE, model.adminMethods],
  ] as const) {
    if (methods.length === 0) continue; // grpc-js refuses an empty service; the proto still declares it
    const impl: UntypedServiceImplementation = {};
    for (const m of methods) impl[m.name] = unaryMethod(kernel, model, m, opByName.get(m.operation) as CompiledOperation, proxies);
    server.addService(definition[`${PROTO_PACKAGE}.${service}`] as ServiceDefinition, impl);
  }
  new ReflectionService(definition).addToServer(server);
  const port = await bind(server, bindAddress(opts.host, opts.port));
  let closing: Promise<void> | undefined;
  return {
    port,
    close: () => (closing ??= shutdown(server, opts.shutdownGraceMs ?? 2000)),
  };
}
