/**
 * A gRPC client for tests, built from the same operation table as the server: it calls an
 * operation by its name (GraphQL root field), sends metadata, and gives back the response in the
 * kernel's JSON shape (JSON-text fields parsed, wrappers removed) so it compares equal to REST's.
 * A failure rejects with an Error whose `code` is the kernel's ErrorCode and `message` the details.
 */
import { Client, Metadata, credentials, type ChannelCredentials, type ServiceError as GrpcError } from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import { codeFromGrpcStatus, type ErrorCode } from '../../core/errors.js';
import type { CompiledOperation } from '../../core/operations.js';
import { decodeResponse, encodeRequest } from '../../transports/grpc/codec.js';
import { loadProtoText } from '../../transports/grpc/load.js';
import { renderProto } from '../../transports/grpc/proto.js';
import { PROTO_PACKAGE, buildProtoModel } from '../../transports/grpc/proto-model.js';

export interface GrpcCallResult {
  response: unknown;
  /** Initial (response header) metadata; text values only. */
  metadata: Record<string, string[]>;
}

export interface GrpcCallError extends Error {
  code: ErrorCode;
  /** The numeric gRPC status. */
  grpcStatus: number;
  /** Initial metadata, then the error's trailers. */
  metadata: Record<string, string[]>;
}

export interface GrpcTestClient {
  call(opName: string, input?: object, metadata?: Record<string, string>): Promise<GrpcCallResult>;
  close(): void;
}

type Wire = Record<string, unknown>;

function record(into: Record<string, string[]>, md: Metadata | undefined): void {
  if (!md) return;
  for (const [k, values] of Object.entries(md.toJSON())) {
    for (const v of values) if (typeof v === 'string') (into[k] ??= []).push(v);
  }
}

export function grpcClient(
  address: string,
  ops: CompiledOperation[],
  options: { deadlineMs?: number; credentials?: ChannelCredentials } = {},
): GrpcTestClient {
  const model = buildProtoModel(ops);
  const definition = loadProtoText(renderProto(model));
  const client = new Client(address, options.credentials ?? credentials.createInsecure());
  return {
    call(opName, input, metadata = {}) {
      const method = model.method(opName);
      if (!method) return Promise.reject(new Error(`operation ${opName} is not on gRPC`));
      const service = definition[`${PROTO_PACKAGE}.${method.service}`] as Record<string, MethodDefinition<Wire, Wire>>;
      const def = service[method.name];
      const md = new Metadata();
      for (const [k, v] of Object.entries(metadata)) md.add(k, v);
      const received: Record<string, string[]> = {};
      return new Promise<GrpcCallResult>((resolve, reject) => {
        const call = client.makeUnaryRequest<Wire, Wire>(
          def.path,
          def.requestSerialize,
          def.responseDeserialize,
          encodeRequest(model, method, input),
          md,
          { deadline: Date.now() + (options.deadlineMs ?? 5000) },
          (err: GrpcError | null, value?: Wire) => {
            if (err) {
              record(received, err.metadata);
              const e = new Error(err.details) as GrpcCallError;
              e.code = codeFromGrpcStatus(err.code);
              e.grpcStatus = err.code;
              e.metadata = received;
              reject(e);
              return;
            }
            try {
              resolve({ response: decodeResponse(model, method, value), metadata: received });
            } catch (decodeErr) {
              reject(decodeErr instanceof Error ? decodeErr : new Error(String(decodeErr)));
            }
          },
        );
        call.on('metadata', (m: Metadata) => record(received, m));
      });
    },
    close() {
      client.close();
    },
  };
}
