/**
 * The gRPC listener over TLS (`--grpc-tls-cert` and `--grpc-tls-key`, each as PEM text or a file
 * path) with a self-signed certificate made for this test, called by the grpc-js client; and the
 * standard health service (grpc.health.v1.Health): Check for the server, each service and an
 * unknown name, and Watch until the server shuts down.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import {
  credentials,
  loadPackageDefinition,
  type ClientReadableStream,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { healthPlugin } from '../../../plugins/health/index.js';
import { metaPlugin } from '../../../plugins/meta/index.js';
import { startGrpcServer } from '../../../transports/grpc/server.js';
import { grpcClient } from '../../helpers/grpc-client.js';
import { bootTestKernel, testContext } from '../../helpers/kernel.js';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-grpc-tls-'));
const certPath = join(dir, 'cert.pem');
const keyPath = join(dir, 'key.pem');
execFileSync('openssl', [
  'req',
  '-x509',
  '-newkey',
  'ec',
  '-pkeyopt',
  'ec_paramgen_curve:prime256v1',
  '-nodes',
  '-days',
  '1',
  '-subj',
  '/CN=localhost',
  '-addext',
  'subjectAltName=DNS:localhost,IP:127.0.0.1',
  '-keyout',
  keyPath,
  '-out',
  certPath,
]);
const cert = readFileSync(certPath);

const booted = await bootTestKernel({ plugins: [metaPlugin], flags: { 'client-id': 'tls-client-id' } });
const { kernel } = booted;
const ops = [...kernel.operations.values()];
// The certificate as PEM text, the key as a file path: both forms of the flags.
const server = await startGrpcServer(kernel, ops, {
  host: '127.0.0.1',
  port: 0,
  shutdownGraceMs: 300,
  tls: { cert: cert.toString(), key: keyPath },
});
const address = `localhost:${server.port}`;
t.teardown(async () => {
  await server.close();
  await booted.close();
  rmSync(dir, { recursive: true, force: true });
});

t.test('a grpc-js client that trusts the certificate calls Meta over TLS', async (t) => {
  const client = grpcClient(address, ops, { credentials: credentials.createSsl(cert) });
  t.teardown(() => client.close());
  const { response } = await client.call('meta');
  t.same(response, await kernel.invoke('meta', testContext(kernel), undefined));
  t.equal((response as { client_id: string }).client_id, 'tls-client-id');
});

t.test('a cleartext client cannot talk to the TLS listener', async (t) => {
  const client = grpcClient(address, ops, { deadlineMs: 1000 });
  t.teardown(() => client.close());
  await t.rejects(client.call('meta'), { code: 'unavailable' });
});

t.test('a client that does not trust the certificate is refused', async (t) => {
  const client = grpcClient(address, ops, { deadlineMs: 1000, credentials: credentials.createSsl() });
  t.teardown(() => client.close());
  await t.rejects(client.call('meta'), { code: 'unavailable' });
});

interface HealthResponse {
  status: string;
}
type HealthClient = InstanceType<ServiceClientConstructor> & {
  Check(
    request: { service: string },
    options: { deadline: number },
    callback: (err: ServiceError | null, value?: HealthResponse) => void,
  ): void;
  Watch(request: { service: string }): ClientReadableStream<HealthResponse>;
};

const healthProto = loadSync(join(import.meta.dirname, '../../../transports/grpc/health/health.proto'), {
  keepCase: true,
  enums: String,
  defaults: true,
});
const Health = (
  loadPackageDefinition(healthProto).grpc as Record<string, Record<string, Record<string, ServiceClientConstructor>>>
).health.v1.Health;
const health = new Health(address, credentials.createSsl(cert)) as HealthClient;
t.teardown(() => health.close());

const check = (service: string) =>
  new Promise<HealthResponse>((resolve, reject) =>
    health.Check({ service }, { deadline: Date.now() + 3000 }, (err, value) =>
      err ? reject(err) : resolve(value as HealthResponse),
    ),
  );

t.test('Check: the server and each of its services are SERVING; an unknown name is NOT_FOUND', async (t) => {
  t.same(await check(''), { status: 'SERVING' }, 'the server as a whole');
  t.same(await check('latchkey.v1.AuthorizerService'), { status: 'SERVING' });
  t.same(await check('latchkey.v1.AuthorizerAdminService'), { status: 'SERVING' });
  await t.rejects(check('latchkey.v1.NoSuchService'), { code: 5, details: /unknown service/ });
});

t.test('Check follows readiness: a draining node is NOT_SERVING', async (t) => {
  const drained = await bootTestKernel({ plugins: [healthPlugin, metaPlugin] });
  const other = await startGrpcServer(drained.kernel, [...drained.kernel.operations.values()], {
    host: '127.0.0.1',
    port: 0,
    shutdownGraceMs: 300,
    tls: null,
  });
  const client = new Health(`127.0.0.1:${other.port}`, credentials.createInsecure()) as HealthClient;
  t.teardown(async () => {
    client.close();
    await other.close();
    await drained.close();
  });
  const ask = () =>
    new Promise<HealthResponse>((resolve, reject) =>
      client.Check({ service: '' }, { deadline: Date.now() + 3000 }, (err, value) =>
        err ? reject(err) : resolve(value as HealthResponse),
      ),
    );
  t.same(await ask(), { status: 'SERVING' });
  // The health plugin's drain (what close() does first): readiness goes, and Check says so.
  drained.kernel.service('health').drain();
  t.same(await ask(), { status: 'NOT_SERVING' });
});

t.test(
  'Watch sends the status at once, SERVICE_UNKNOWN for an unknown name, and NOT_SERVING at shutdown',
  async (t) => {
    const unknown = health.Watch({ service: 'nope' });
    const first = await new Promise<HealthResponse>((resolve) => unknown.once('data', resolve));
    t.same(first, { status: 'SERVICE_UNKNOWN' });
    unknown.cancel();
    unknown.on('error', () => {});

    const watch = health.Watch({ service: '' });
    const seen: string[] = [];
    const ended = new Promise<void>((resolve) => {
      watch.on('data', (r: HealthResponse) => seen.push(r.status));
      watch.on('status', () => resolve());
      watch.on('error', () => resolve());
    });
    await new Promise((resolve) => watch.once('data', resolve));
    await server.close();
    await ended;
    t.same(seen, ['SERVING', 'NOT_SERVING']);
  },
);
