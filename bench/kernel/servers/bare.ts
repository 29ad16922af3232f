/**
 * Kernel bench child: the references. A bare Fastify route returning the same Meta object
 * (serialized per request, as the real route does), the same GraphQL query on bare Mercurius, and
 * the same JSON bytes answered as a gRPC call with no protobuf and no kernel, twice: by a bare
 * grpc-js method and by node:http2 alone (what Latchkey's gRPC server ran on before its own HTTP/2): what
 * each stack costs by itself.
 */
import { createServer as createHttp2Server } from 'node:http2';
import { Server, ServerCredentials, type ServiceDefinition } from '@grpc/grpc-js';
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { portOf, serveUntilStdinCloses } from '../../child.js';

const meta = JSON.parse(process.argv[2] ?? '{}') as Record<string, unknown>;
const app = Fastify({ logger: false });
app.get('/v1/meta', async () => ({ ...meta }));
await app.listen({ host: '127.0.0.1', port: 0 });
const httpPort = portOf(app.server);

// The same query on Mercurius alone (JIT as Latchkey sets it): what the GraphQL layer costs by itself.
const gql = Fastify({ logger: false });
const metaType = Object.entries(meta)
  .map(([k, v]) => `  ${k}: ${typeof v === 'boolean' ? 'Boolean' : 'String'}`)
  .join('\n');
await gql.register(mercurius, {
  schema: `type Meta {\n${metaType}\n}\ntype Query { meta: Meta }`,
  resolvers: { Query: { meta: async () => ({ ...meta }) } },
  jit: 1,
});
await gql.listen({ host: '127.0.0.1', port: 0 });
const gqlPort = portOf(gql.server);

const grpc = new Server();
const payload = Buffer.from(JSON.stringify(meta));
const same = (b: Buffer) => b;
const service: ServiceDefinition = {
  Meta: {
    path: '/bench.Bare/Meta',
    requestStream: false,
    responseStream: false,
    requestSerialize: same,
    requestDeserialize: same,
    responseSerialize: same,
    responseDeserialize: same,
  },
};
grpc.addService(service, { Meta: (_call: unknown, cb: (err: null, value: Buffer) => void) => cb(null, payload) });
const grpcPort = await new Promise<number>((resolve, reject) =>
  grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
);

// The same bytes as a gRPC answer from node:http2 alone: headers, one framed message, grpc-status 0.
const framed = Buffer.alloc(5 + payload.length);
framed.writeUInt32BE(payload.length, 1);
payload.copy(framed, 5);
const h2 = createHttp2Server();
h2.on('stream', (stream) => {
  stream.on('error', () => {});
  stream.resume();
  stream.on('end', () => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(framed);
  });
});
const h2Port = await new Promise<number>((resolve) => h2.listen(0, '127.0.0.1', () => resolve(portOf(h2))));
serveUntilStdinCloses(
  {
    base: `http://127.0.0.1:${httpPort}`,
    graphql: `http://127.0.0.1:${gqlPort}/graphql`,
    grpc: `127.0.0.1:${grpcPort}`,
    http2: `127.0.0.1:${h2Port}`,
  },
  async () => {
    grpc.forceShutdown();
    h2.close();
    await Promise.all([app.close(), gql.close()]);
  },
);
