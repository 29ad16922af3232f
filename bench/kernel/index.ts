/**
 * Kernel section (issue 2): GET /v1/meta, GraphQL `meta` and gRPC `Meta` beside a bare Fastify
 * route returning a same-sized JSON body, all in this process, one after another.
 * Targets: REST >= 80% of bare Fastify; GraphQL and gRPC >= 60%.
 */
import Fastify from 'fastify';
import { pathToFileURL } from 'node:url';
import { basePlugins } from '../../plugins/default.js';
import { grpcClient } from '../../test/helpers/grpc-client.js';
import { startTestServer } from '../../test/helpers/server.js';
import { closedLoop, httpLoad } from '../load.js';
import { printTable, type Row } from '../table.js';

export async function runKernelBench(): Promise<Row[]> {
  const server = await startTestServer({ plugins: basePlugins, flags: { 'rate-limit-per-minute': 0 } });
  const metaBody = JSON.stringify(await (await fetch(`${server.url}/v1/meta`)).json());
  const bare = Fastify({ logger: false });
  bare.get('/v1/meta', async (_req, reply) => reply.type('application/json').send(metaBody));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareAddr = bare.server.address();
  const barePort = typeof bareAddr === 'object' && bareAddr ? bareAddr.port : 0;
  const rows: Row[] = [];
  try {
    const ref = await httpLoad({ url: `http://127.0.0.1:${barePort}/v1/meta` });
    rows.push({ section: 'kernel', name: 'bare Fastify GET /v1/meta', value: ref.rps, unit: 'req/s', note: `p99 ${ref.p99ms} ms` });
    const rest = await httpLoad({ url: `${server.url.replace('localhost', '127.0.0.1')}/v1/meta` });
    rows.push({ section: 'kernel', name: 'REST GET /v1/meta', value: rest.rps, unit: 'req/s', reference: 'bare Fastify', ratio: rest.rps / ref.rps, note: `p99 ${rest.p99ms} ms, target 80%` });
    const gql = await httpLoad({
      url: `${server.url.replace('localhost', '127.0.0.1')}/graphql`,
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ query: '{ meta { version client_id is_sign_up_enabled is_basic_authentication_enabled is_google_login_enabled } }' }),
    });
    rows.push({ section: 'kernel', name: 'GraphQL meta', value: gql.rps, unit: 'req/s', reference: 'bare Fastify', ratio: gql.rps / ref.rps, note: `p99 ${gql.p99ms} ms, target 60%` });
    const client = grpcClient(server.grpcAddress, [...server.kernel.operations.values()]);
    const rpc = await closedLoop(() => client.call('meta'));
    client.close();
    rows.push({ section: 'kernel', name: 'gRPC Meta', value: rpc.rps, unit: 'req/s', reference: 'bare Fastify', ratio: rpc.rps / ref.rps, note: `p99 ${rpc.p99ms.toFixed(2)} ms, target 60%` });
  } finally {
    await bare.close();
    await server.close();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printTable(await runKernelBench());
