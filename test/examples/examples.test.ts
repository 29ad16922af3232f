/** The framework uses: a custom build and Latchkey embedded in a host Fastify app. */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { withDefaults } from '../../core/config.js';
import { Kernel } from '../../core/kernel.js';
import { operationTable } from '../../core/operation-table.js';
import { customBuild } from '../../examples/custom-build.js';
import { buildHostApp } from '../../examples/embedding.js';
import { basePlugins } from '../../plugins/default.js';
import { startTestServer } from '../helpers/server.js';

t.test('custom build: a plugin of its own on REST and GraphQL, nothing else', async (t) => {
  const s = await startTestServer({ plugins: customBuild, flags: { 'greeting-word': 'ahoy' } });
  t.teardown(() => s.close());
  const rest = await fetch(`${s.url}/v1/greet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: s.url },
    body: JSON.stringify({ name: 'Ada' }),
  });
  t.same(await rest.json(), { message: 'ahoy, Ada' });
  const gql = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: s.url },
    body: JSON.stringify({
      query: 'query($p: GreetRequest!) { greet(params: $p) { message } }',
      variables: { p: { name: 'Bo' } },
    }),
  });
  t.same(await gql.json(), { data: { greet: { message: 'ahoy, Bo' } } });
  const names = operationTable(customBuild, withDefaults(Kernel.flagsOf(customBuild), {})).map((o) => o.def.name);
  t.notOk(names.includes('signup'), 'a custom build carries only its plugins');
});

t.test('embedding: Latchkey under /auth beside the host routes and error handler', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-embed-'));
  const config = withDefaults(Kernel.flagsOf(basePlugins), {
    'database-type': 'sqlite',
    'database-url': join(dir, 'embed.db'),
    'memory-store': 'process',
    url: 'http://localhost:3000/auth',
    'admin-secret': 'embedded-admin',
    'client-id': 'host-app',
    'client-secret': 'host-secret',
    'jwt-type': 'HS256',
    'jwt-secret': 'embedded-jwt-secret',
    'log-level': 'silent',
  });
  const app = await buildHostApp(basePlugins, config);
  t.teardown(() => app.close());
  await app.ready();
  t.same((await app.inject('/')).json(), { app: 'host' }, 'host route');
  const boom = await app.inject('/boom');
  t.equal(boom.statusCode, 500);
  t.same(boom.json(), { host_error: 'host failure' }, "the host's error handler is untouched");
  const meta = await app.inject('/auth/v1/meta');
  t.equal(meta.statusCode, 200);
  t.equal(meta.json().client_id, 'host-app');
  // The security headers come from helmet in Latchkey's scope (security-headers.ts).
  t.equal(meta.headers['x-frame-options'], 'DENY', 'security headers on Latchkey routes of a host app');
  t.equal(meta.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'", 'once, not twice');
  const missing = await app.inject('/auth/v1/nope');
  t.same(missing.json(), { code: 'not_found', message: 'route not found' }, 'Latchkey envelope inside its prefix');
  const login = await app.inject({
    method: 'POST',
    url: '/auth/v1/admin/login',
    headers: { origin: 'http://localhost:3000' },
    payload: { admin_secret: 'embedded-admin' },
  });
  t.equal(login.statusCode, 200);
  t.equal(login.headers['cache-control'], 'no-store', 'answers about the caller say no-store in a host app too');
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/auth/graphql',
        headers: { origin: 'http://localhost:3000' },
        payload: { query: '{ meta { client_id } }' },
      })
    ).json().data.meta.client_id,
    'host-app',
  );
  t.equal(app.latchkey.config.string('client-id'), 'host-app', 'one decorator exposes the kernel');
  t.notOk((await app.inject('/')).headers['content-security-policy'], 'no Latchkey hooks on host routes');
});
