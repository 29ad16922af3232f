/**
 * CORS against a real server (Fetch standard "CORS protocol"; --allowed-origins; the request
 * headers clients send: x-authorizer-url, x-authorizer-client-id, x-service-admin-secret,
 * authorization, content-type): any origin reflected, or only the listed ones; credentials only
 * for listed origins and, with `*`, the service's own site (transports/http/credentialed-origins.ts).
 */
import t from 'tap';
import { basePlugins } from '../../../plugins/default.js';
import { startTestServer } from '../../helpers/server.js';

const preflight = (url: string, origin: string | undefined, method: string | null = 'POST') =>
  fetch(url, {
    method: 'OPTIONS',
    headers: {
      ...(origin ? { origin } : {}),
      ...(method ? { 'access-control-request-method': method } : {}),
      'access-control-request-headers': 'content-type,authorization',
    },
  });

t.test(
  'with --allowed-origins * every origin is reflected, never a literal *, but only the own site gets credentials',
  async (t) => {
    const server = await startTestServer({ plugins: basePlugins, flags: { 'allowed-origins': '*' } });
    t.teardown(() => server.close());
    const res = await fetch(`${server.url}/v1/meta`, { headers: { origin: 'https://anything.example' } });
    t.equal(res.status, 200);
    t.equal(res.headers.get('access-control-allow-origin'), 'https://anything.example');
    t.equal(
      res.headers.get('access-control-allow-credentials'),
      null,
      'another site may read public answers, not with cookies',
    );
    t.match(res.headers.get('vary') ?? '', /Origin/);
    // --url is http://localhost:<port>: a loopback service trusts loopback origins (development).
    const dev = await fetch(`${server.url}/v1/meta`, { headers: { origin: 'http://localhost:3000' } });
    t.equal(dev.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    t.equal(dev.headers.get('access-control-allow-credentials'), 'true');
    const own = await fetch(`${server.url}/v1/meta`, { headers: { origin: server.url } });
    t.equal(own.headers.get('access-control-allow-credentials'), 'true');
    for (const fetchSite of ['cross-site', 'same-origin']) {
      const opaque = await fetch(`${server.url}/v1/meta`, { headers: { origin: 'null', 'sec-fetch-site': fetchSite } });
      t.equal(
        opaque.headers.get('access-control-allow-origin'),
        null,
        `an opaque origin gets no CORS answer (Sec-Fetch-Site ${fetchSite}), never a reflected null`,
      );
    }

    const plain = await fetch(`${server.url}/v1/meta`);
    t.equal(plain.headers.get('access-control-allow-origin'), null, 'no Origin, no CORS answer');
    t.match(plain.headers.get('vary') ?? '', /Origin/, 'caches still key on Origin');

    const pre = await preflight(`${server.url}/v1/admin/login`, 'https://anything.example');
    t.equal(pre.status, 204);
    t.equal(pre.headers.get('content-length'), '0');
    t.equal(pre.headers.get('access-control-allow-origin'), 'https://anything.example');
    t.equal(pre.headers.get('access-control-max-age'), '600');
    t.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
    const allowed = (pre.headers.get('access-control-allow-headers') ?? '').split(',').map((h) => h.trim());
    for (const h of [
      'x-authorizer-url',
      'x-authorizer-client-id',
      'x-service-admin-secret',
      'authorization',
      'content-type',
    ])
      t.ok(allowed.includes(h), h);
  },
);

t.test('with a list only its origins (trailing slash ignored) get CORS headers', async (t) => {
  const server = await startTestServer({
    plugins: basePlugins,
    flags: { 'allowed-origins': 'https://app.example/,https://admin.example' },
  });
  t.teardown(() => server.close());
  for (const origin of ['https://app.example', 'https://admin.example']) {
    const res = await fetch(`${server.url}/v1/meta`, { headers: { origin } });
    t.equal(res.headers.get('access-control-allow-origin'), origin);
    t.equal(res.headers.get('access-control-allow-credentials'), 'true', 'a listed origin may send cookies');
    t.equal((await preflight(`${server.url}/graphql`, origin)).headers.get('access-control-allow-origin'), origin);
  }
  const other = await fetch(`${server.url}/v1/meta`, { headers: { origin: 'https://evil.example' } });
  t.equal(other.status, 200, 'the request itself is served; the browser withholds the answer');
  t.equal(other.headers.get('access-control-allow-origin'), null);
  t.equal(other.headers.get('access-control-allow-credentials'), null);
  const otherPre = await preflight(`${server.url}/graphql`, 'https://evil.example');
  t.equal(otherPre.headers.get('access-control-allow-origin'), null);
});

t.test('an OPTIONS request that is not a preflight is a 400', async (t) => {
  const server = await startTestServer({ plugins: basePlugins });
  t.teardown(() => server.close());
  const noMethod = await preflight(`${server.url}/v1/meta`, 'https://app.example', null);
  t.equal(noMethod.status, 400);
  t.strictSame(
    await noMethod.json(),
    {
      code: 'invalid_argument',
      message: 'not a CORS preflight: Origin and Access-Control-Request-Method are required',
    },
    'in the error envelope',
  );
  const noOrigin = await preflight(`${server.url}/v1/meta`, undefined);
  t.equal(noOrigin.status, 400);
  t.equal(((await noOrigin.json()) as { code: string }).code, 'invalid_argument');
  t.equal(noMethod.headers.get('x-content-type-options'), 'nosniff', 'security headers on every answer');
});
