/**
 * Kernel bench child: the references. A bare Fastify route returning the same Meta object
 * (serialized per request, as the real route does), the same GraphQL query on bare Mercurius, and
 * a bare @grpc/grpc-js server (default options, no interceptor, no kernel) answering
 * `latchkey.v1.AuthorizerService/Meta` with the very bytes Latchkey answers (the Meta message,
 * encoded once): what each stack costs by itself.
 */
import { Server, ServerCredentials, type MethodDefinition, type ServiceDefinition } from '@grpc/grpc-js';
import { loadProtoText } from '../../../transports/grpc/load.js';
import { COMMITTED_PROTO_PATH } from '../../../transports/grpc/default-proto.js';
import { readFileSync } from 'node:fs';
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
const generated = loadProtoText(readFileSync(COMMITTED_PROTO_PATH, 'utf8'))['latchkey.v1.AuthorizerService'] as Record<
  string,
  MethodDefinition<object, object>
>;
const payload = generated.Meta.responseSerialize(meta);
const same = (b: Buffer) => b;
const service: ServiceDefinition = {
  Meta: {
    path: generated.Meta.path,
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

serveUntilStdinCloses(
  {
    base: `http://127.0.0.1:${httpPort}`,
    graphql: `http://127.0.0.1:${gqlPort}/graphql`,
    grpc: `127.0.0.1:${grpcPort}`,
  },
  async () => {
    grpc.forceShutdown();
    await Promise.all([app.close(), gql.close()]);
  },
);
