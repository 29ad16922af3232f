/**
 * Kernel section (issue 2): GET /v1/meta, GraphQL `meta` and gRPC `Meta` beside a bare Fastify
 * route that returns the same Meta object (serialized per request, as the real route does), all in
 * this process, one after another. A second bare route sends the body as a prebuilt string, the
 * ceiling of the HTTP stack alone, shown for information.
 * Targets: REST >= 80% of bare Fastify; GraphQL and gRPC >= 60%.
 */
import { Client, Server, ServerCredentials, credentials, type ServiceDefinition } from '@grpc/grpc-js';
import Fastify from 'fastify';
import { pathToFileURL } from 'node:url';
import { basePlugins } from '../../plugins/default.js';
import { grpcClient } from '../../test/helpers/grpc-client.js';
import { startTestServer } from '../../test/helpers/server.js';
import { closedLoop, httpLoad } from '../load.js';
import { printTable, type Row } from '../table.js';

export async function runKernelBench(): Promise<Row[]> {
  const server = await startTestServer({ plugins: basePlugins, flags: { 'rate-limit-per-minute': 0 } });
  const meta = (await (await fetch(`${server.url}/v1/meta`)).json()) as Record<string, unknown>;
  const metaBody = JSON.stringify(meta);
  const bare = Fastify({ logger: false });
  bare.get('/v1/meta', async () => ({ ...meta }));
  bare.get('/prebuilt', async (_req, reply) => reply.type('application/json').send(metaBody));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareAddr = bare.server.address();
  const barePort = typeof bareAddr === 'object' && bareAddr ? bareAddr.port : 0;
  const rows: Row[] = [];
  try {
    const prebuilt = await httpLoad({ url: `http://127.0.0.1:${barePort}/prebuilt` });
    rows.push({ section: 'kernel', name: 'bare Fastify, prebuilt string body', value: prebuilt.rps, unit: 'req/s', note: `p99 ${prebuilt.p99ms} ms, information` });
    const ref = await httpLoad({ url: `http://127.0.0.1:${barePort}/v1/meta` });
    rows.push({ section: 'kernel', name: 'bare Fastify GET /v1/meta (object)', value: ref.rps, unit: 'req/s', note: `p99 ${ref.p99ms} ms` });
    const rest = await httpLoad({ url: `${server.url.replace('localhost', '127.0.0.1')}/v1/meta` });
    rows.push({ section: 'kernel', name: 'REST GET /v1/meta', value: rest.rps, unit: 'req/s', reference: 'bare Fastify', ratio: rest.rps / ref.rps, note: `p99 ${rest.p99ms} ms, target 80%` });
    const gql = await httpLoad({
      url: `${server.url.replace('localhost', '127.0.0.1')}/graphql`,
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ query: '{ meta { version client_id is_sign_up_enabled is_basic_authentication_enabled is_google_login_enabled } }' }),
    });
    rows.push({ section: 'kernel', name: 'GraphQL meta', value: gql.rps, unit: 'req/s', reference: 'bare Fastify', ratio: gql.rps / ref.rps, note: `p99 ${gql.p99ms} ms, target 60%` });
    const bareGrpc = await bareGrpcServer(metaBody);
    const rawClient = new Client(`127.0.0.1:${bareGrpc.port}`, credentials.createInsecure());
    const identity = (b: Buffer) => b;
    const empty = Buffer.alloc(0);
    const grpcRef = await closedLoop(
      () =>
        new Promise((resolve, reject) =>
          rawClient.makeUnaryRequest('/bench.Bare/Meta', identity, identity, empty, (err, value) => (err ? reject(err) : resolve(value))),
        ),
    );
    rawClient.close();
    bareGrpc.server.forceShutdown();
    rows.push({ section: 'kernel', name: 'bare grpc-js Meta (same client loop)', value: grpcRef.rps, unit: 'req/s', note: `p99 ${grpcRef.p99ms.toFixed(2)} ms` });
    const client = grpcClient(server.grpcAddress, [...server.kernel.operations.values()]);
    const rpc = await closedLoop(() => client.call('meta'));
    client.close();
    rows.push({ section: 'kernel', name: 'gRPC Meta', value: rpc.rps, unit: 'req/s', reference: 'bare Fastify', ratio: rpc.rps / ref.rps, note: `p99 ${rpc.p99ms.toFixed(2)} ms, target 60%` });
    rows.push({ section: 'kernel', name: 'gRPC Meta', value: rpc.rps, unit: 'req/s', reference: 'bare grpc-js', ratio: rpc.rps / grpcRef.rps, note: 'same in-process client for both' });
  } finally {
    await bare.close();
    await server.close();
  }
  return rows;
}

/**
 * A gRPC server with one method answering the same JSON bytes, no protobuf and no kernel: what
 * grpc-js itself costs with the same client loop, since the in-process client dominates.
 */
async function bareGrpcServer(body: string): Promise<{ server: Server; port: number }> {
  const server = new Server();
  const payload = Buffer.from(body);
  const service: ServiceDefinition = {
    Meta: {
      path: '/bench.Bare/Meta',
      requestStream: false,
      responseStream: false,
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
    },
  };
  server.addService(service, { Meta: (_call: unknown, cb: (err: null, value: Buffer) => void) => cb(null, payload) });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { server, port };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printTable(await runKernelBench());
