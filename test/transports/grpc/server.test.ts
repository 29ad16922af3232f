/**
 * The gRPC transport over the wire: a real kernel (admin, meta and a probe plugin) served on
 * 127.0.0.1, called through the test client, and its reflection service queried with a real
 * grpc.reflection.v1alpha request.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import t from 'tap';
import {
  Client,
  Metadata,
  credentials,
  loadPackageDefinition,
  type ClientDuplexStream,
  type ServiceClientConstructor,
} from '@grpc/grpc-js';
import { loadSync, type MethodDefinition } from '@grpc/proto-loader';
import { ERROR_CODES, errorStatus, ServiceError } from '../../../core/errors.js';
import { adminPlugin } from '../../../plugins/admin/index.js';
import { metaPlugin } from '../../../plugins/meta/index.js';
import { loadProtoText } from '../../../transports/grpc/load.js';
import { buildProto } from '../../../transports/grpc/proto.js';
import { startGrpcServer } from '../../../transports/grpc/server.js';
import { grpcClient, type GrpcCallError } from '../../helpers/grpc-client.js';
import { bootTestKernel, testContext } from '../../helpers/kernel.js';
import { probePlugin } from './probe-plugin.js';

const ADMIN_SECRET = 'grpc-admin-secret';

const booted = await bootTestKernel({
  plugins: [adminPlugin, metaPlugin, probePlugin],
  flags: {
    'admin-secret': ADMIN_SECRET,
    'client-id': 'grpc-client-id',
    roles: 'user,editor,admin',
    'default-roles': 'user',
    'protected-roles': 'admin',
    // The test client connects from 127.0.0.1, so it may speak for the real client (x-forwarded-for).
    'trusted-proxies': '127.0.0.1/32',
  },
});
const { kernel } = booted;
const ops = [...kernel.operations.values()];
const server = await startGrpcServer(kernel, ops, { host: '127.0.0.1', port: 0, shutdownGraceMs: 500 });
const address = `127.0.0.1:${server.port}`;
const client = grpcClient(address, ops);
t.teardown(async () => {
  client.close();
  await server.close();
  await booted.close();
});

async function failure(p: Promise<unknown>): Promise<GrpcCallError> {
  try {
    await p;
  } catch (err) {
    return err as GrpcCallError;
  }
  throw new Error('the call succeeded but was expected to fail');
}

t.test('meta answers exactly what the kernel answers', async (t) => {
  const { response } = await client.call('meta');
  t.same(response, await kernel.invoke('meta', testContext(kernel), undefined));
  t.equal((response as { client_id: string }).client_id, 'grpc-client-id');
});

t.test('an operation without input sees transport grpc and the peer address', async (t) => {
  const { response } = await client.call('probe_ping');
  t.strictSame(response, { pong: true, transport: 'grpc', ip: '127.0.0.1' });
  const forwarded = await client.call('probe_ping', undefined, { 'x-forwarded-for': '203.0.113.7, 127.0.0.1' });
  t.equal(
    (forwarded.response as { ip: string }).ip,
    '203.0.113.7',
    'x-forwarded-for honoured from a trusted proxy only',
  );
});

t.test('nested objects, lists, int64 and Map fields survive the round trip', async (t) => {
  const input = {
    name: 'Ada',
    count: 4_000_000_000,
    tags: ['x', 'y'],
    attrs: { plan: 'pro', limits: { seats: 5, flags: [true, null] } },
    address: { city: 'London', geo: { lat: 51.5, lng: -0.12 } },
    items: [
      { sku: 'k1', qty: 1 },
      { sku: 'k2', qty: 3 },
    ],
  };
  const { response } = await client.call('probe_echo', input, {
    authorization: 'Bearer abc.def',
    origin: 'https://app.example.com',
    cookie: 'first=1; second=two%20words',
  });
  const direct = await kernel.invoke(
    'probe_echo',
    testContext(kernel, {
      headers: { authorization: 'Bearer abc.def', origin: 'https://app.example.com' },
      cookies: { first: '1', second: 'two words' },
    }),
    input,
  );
  const { seen, ...rest } = response as { seen: Record<string, unknown> } & Record<string, unknown>;
  const { seen: directSeen, ...directRest } = direct as { seen: Record<string, unknown> } & Record<string, unknown>;
  t.strictSame(rest, directRest, 'same result as a direct kernel call');
  t.equal(seen.authorization, directSeen.authorization);
  t.equal(seen.origin, 'https://app.example.com');
  t.strictSame(seen.cookies, { first: '1', second: 'two words' }, 'cookie metadata parsed into the cookie record');
  t.match(seen.user_agent, /grpc-node-js/, 'user-agent metadata reaches the context');
});

t.test('optional fields left out stay absent; required lists come back empty', async (t) => {
  const { response } = await client.call('probe_echo', { name: 'Min' });
  t.strictSame(response, {
    name: 'Min',
    tags: [],
    items: [],
    seen: { user_agent: (response as { seen: { user_agent: string } }).seen.user_agent, cookies: {} },
  });
});

t.test('a list result arrives as the list itself', async (t) => {
  const { response } = await client.call('probe_list');
  t.strictSame(response, await kernel.invoke('probe_list', testContext(kernel), undefined));
  t.equal((response as { n: number }[])[1].n, Number.MAX_SAFE_INTEGER, 'int64 as a JSON number');
});

t.test('validation errors are INVALID_ARGUMENT with the kernel message', async (t) => {
  const err = await failure(client.call('probe_echo', { name: 'x', count: -1 }));
  const direct = await kernel
    .invoke('probe_echo', testContext(kernel), { name: 'x', count: -1 })
    .catch((e: ServiceError) => e);
  t.equal(err.code, 'invalid_argument');
  t.equal(err.grpcStatus, 3);
  t.equal(err.message, (direct as ServiceError).message);
  t.match(err.message, /^invalid count/);
});

t.test('JSON-text fields that are not JSON are INVALID_ARGUMENT naming the field', async (t) => {
  // A raw call, because the test client always sends valid JSON text.
  const definition = loadProtoText(buildProto(ops));
  const def = (definition['latchkey.v1.AuthorizerService'] as Record<string, MethodDefinition<object, object>>)
    .ProbeEcho;
  const raw = new Client(address, credentials.createInsecure());
  t.teardown(() => raw.close());
  const err = await new Promise<{ code: number; details: string }>((resolve) => {
    raw.makeUnaryRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      { name: 'x', attrs: '{not json' },
      new Metadata(),
      (e) => resolve(e as { code: number; details: string }),
    );
  });
  t.equal(err.code, 3);
  t.equal(err.details, 'invalid attrs: must be JSON text');
});

t.test('every ServiceError code maps to its gRPC status and back', async (t) => {
  for (const code of ERROR_CODES) {
    const err = await failure(client.call('probe_fail', { code }));
    t.equal(err.grpcStatus, errorStatus[code].grpc, `${code} -> status ${errorStatus[code].grpc}`);
    // method_not_allowed has no status of its own (it shares UNIMPLEMENTED).
    t.equal(err.code, code === 'method_not_allowed' ? 'unimplemented' : code);
    t.equal(err.message, `probe failed with ${code}`);
    t.strictSame(err.metadata['www-authenticate'], ['Bearer realm="probe"'], 'error headers travel as trailers');
  }
});

t.test('an unexpected error is INTERNAL without detail', async (t) => {
  const err = await failure(client.call('probe_fail', { code: 'crash' }));
  t.equal(err.code, 'internal');
  t.equal(err.grpcStatus, 13);
  t.notMatch(err.message, /SELECT|secrets/);
});

t.test('cookie effects arrive as set-cookie metadata', async (t) => {
  const { response, metadata } = await client.call('probe_cookie');
  t.strictSame(response, { message: 'cookies set' });
  t.strictSame(metadata['set-cookie'], [
    'probe-session=a%20b%3Bc; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax',
    'probe-old=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly',
  ]);
});

t.test('admin login with a wrong secret is UNAUTHENTICATED', async (t) => {
  const err = await failure(client.call('_admin_login', { admin_secret: 'wrong' }));
  t.equal(err.code, 'unauthenticated');
  t.equal(err.grpcStatus, 16);
  t.equal(err.message, 'invalid admin secret');
});

t.test('_admin_meta needs the admin secret metadata', async (t) => {
  const denied = await failure(client.call('_admin_meta'));
  t.equal(denied.code, 'unauthenticated');
  const { response } = await client.call('_admin_meta', undefined, { 'x-service-admin-secret': ADMIN_SECRET });
  t.strictSame(response, {
    roles: ['user', 'editor', 'admin'],
    default_roles: ['user'],
    protected_roles: ['admin'],
    // No plugin of this build offers a second factor (test/plugins/admin/admin-meta-mfa.test.ts).
    is_multi_factor_auth_service_enabled: false,
  });
});

t.test('admin login sets the service-admin cookie, which then authenticates admin calls', async (t) => {
  const { response, metadata } = await client.call('_admin_login', { admin_secret: ADMIN_SECRET });
  t.strictSame(response, { message: 'admin logged in successfully' });
  const cookie = (metadata['set-cookie'] ?? []).find((c) => c.startsWith('service-admin='));
  t.ok(cookie, 'service-admin cookie set');
  t.match(cookie, /HttpOnly/);
  const pair = (cookie as string).split(';')[0];
  const meta = await client.call('_admin_meta', undefined, { cookie: pair });
  t.same((meta.response as { roles: string[] }).roles, ['user', 'editor', 'admin']);
});

t.test('operations with grpc: false are not served', async (t) => {
  await t.rejects(client.call('probe_hidden'), /not on gRPC/);
});

interface ReflectionResponse {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

t.test('server reflection lists both services and serves their file descriptor', async (t) => {
  const require = createRequire(import.meta.url);
  const protoPath = join(
    dirname(require.resolve('@grpc/reflection/package.json')),
    'build/proto/grpc/reflection/v1alpha/reflection.proto',
  );
  const pkg = loadPackageDefinition(
    loadSync(protoPath, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true }),
  );
  const Reflection = (
    (pkg.grpc as Record<string, unknown>).reflection as Record<string, Record<string, ServiceClientConstructor>>
  ).v1alpha.ServerReflection;
  const reflection = new Reflection(address, credentials.createInsecure());
  t.teardown(() => reflection.close());
  const ask = (request: object) =>
    new Promise<ReflectionResponse>((resolve, reject) => {
      const stream = (
        reflection as unknown as { ServerReflectionInfo(): ClientDuplexStream<object, ReflectionResponse> }
      ).ServerReflectionInfo();
      stream.on('data', (r: ReflectionResponse) => {
        resolve(r);
        stream.end();
      });
      stream.on('error', reject);
      stream.write(request);
    });

  const listed = await ask({ list_services: '' });
  const names = (listed.list_services_response?.service ?? []).map((s) => s.name);
  t.ok(names.includes('latchkey.v1.AuthorizerService'), 'public service listed');
  t.ok(names.includes('latchkey.v1.AuthorizerAdminService'), 'admin service listed');

  const file = await ask({ file_containing_symbol: 'latchkey.v1.AuthorizerAdminService' });
  const descriptor = Buffer.concat(file.file_descriptor_response?.file_descriptor_proto ?? []).toString('latin1');
  t.match(descriptor, /latchkey\.v1/, 'descriptor of the generated package');
  t.match(descriptor, /AdminMeta/, 'it describes the admin methods');
  t.match(descriptor, /ProbeEchoRequest/, 'and the probe messages');
  t.notMatch(descriptor, /ProbeHidden/, 'but not operations kept off gRPC');

  t.ok(names.includes('grpc.health.v1.Health'), 'the health service is described too');
  const unknown = await ask({ file_containing_symbol: 'latchkey.v1.NoSuchService' });
  t.equal(unknown.error_response?.error_code, 5, 'an unknown symbol is NOT_FOUND');
});

t.test('close is graceful and quick, and the port stops answering', async (t) => {
  const extra = await startGrpcServer(kernel, ops, { host: '127.0.0.1', port: 0, shutdownGraceMs: 300 });
  const c = grpcClient(`127.0.0.1:${extra.port}`, ops, { deadlineMs: 1000 });
  t.teardown(() => c.close());
  t.equal(((await c.call('probe_ping')).response as { pong: boolean }).pong, true);
  const started = Date.now();
  await extra.close();
  t.ok(Date.now() - started < 1000, `closed in ${Date.now() - started} ms`);
  const err = await failure(c.call('probe_ping'));
  t.equal(err.code, 'unavailable');
});
