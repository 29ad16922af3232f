/**
 * The HTTP baseline against a real server ("Authentication", operational
 * endpoints).
 */
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { basePlugins } from '../../../plugins/default.js';
import { startTestServer, TEST_ADMIN_SECRET, type TestServer } from '../../helpers/server.js';
import { grpcClient } from '../../helpers/grpc-client.js';

const ORIGIN = { origin: 'http://localhost' };
let server: TestServer;

t.before(async () => {
  server = await startTestServer({ plugins: basePlugins });
});
t.teardown(() => server.close());

const post = (path: string, body: unknown, headers: Record<string, string> = ORIGIN) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

t.test('GET /v1/meta returns Meta at the top level', async (t) => {
  const res = await fetch(`${server.url}/v1/meta`);
  t.equal(res.status, 200);
  const meta = (await res.json()) as Record<string, unknown>;
  t.equal(meta.client_id, 'test-client');
  t.equal(typeof meta.version, 'string');
  t.equal(meta.is_google_login_enabled, false);
  t.equal(meta.is_org_discovery_enabled, false);
  // Meta is sent as JSON text made once (constantOutput): it must still be labelled JSON and equal.
  const again = await fetch(`${server.url}/v1/meta`);
  t.match(again.headers.get('content-type') ?? '', /^application\/json/);
  t.strictSame(await again.json(), meta);
});

t.test('a wrong method answers 405 method_not_allowed in the envelope', async (t) => {
  const res = await post('/v1/meta', {});
  t.equal(res.status, 405);
  t.same(await res.json(), { code: 'method_not_allowed', message: 'method not allowed; use GET' });
  const res2 = await fetch(`${server.url}/v1/admin/login`);
  t.equal(res2.status, 405);
  t.equal(((await res2.json()) as { code: string }).code, 'method_not_allowed');
});

t.test('a method Fastify does not route (TRACE, PROPFIND, LOCK) on a known path is a 405 too', async (t) => {
  const { port } = new URL(server.url);
  const call = (method: string, path: string) =>
    new Promise<{ status: number; allow: string | undefined; body: unknown }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: ORIGIN }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end();
    });
  for (const method of ['TRACE', 'PROPFIND', 'LOCK']) {
    const r = await call(method, '/v1/meta');
    t.same(
      r,
      { status: 405, allow: 'GET', body: { code: 'method_not_allowed', message: 'method not allowed; use GET' } },
      `${method} /v1/meta`,
    );
  }
  const admin = await call('TRACE', '/v1/admin/login?x=1');
  t.equal(admin.status, 405, 'with a query string as well');
  t.equal(admin.allow, 'POST');
  const unknown = await call('TRACE', '/v1/nope');
  t.equal(unknown.status, 404, 'an unknown path stays a 404');
});

t.test('REST bodies are JSON: a form-encoded body is 415, as other non-JSON types are', async (t) => {
  const res = await fetch(`${server.url}/v1/admin/login`, {
    method: 'POST',
    headers: { ...ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    body: `admin_secret=${encodeURIComponent(TEST_ADMIN_SECRET)}`,
  });
  t.equal(res.status, 415);
  t.same(await res.json(), { code: 'invalid_argument', message: 'unsupported content type' });
  t.equal(res.headers.get('set-cookie'), null, 'no admin session was started');
  const gql = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { ...ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'query=%7B%20meta%20%7B%20version%20%7D%20%7D',
  });
  t.equal(gql.status, 415, 'GraphQL takes no form either: only routes that declare forms parse them');
});

t.test('a compressed request body is 415: bodies are read as sent (RFC 9110 §15.5.16)', async (t) => {
  const login = JSON.stringify({ admin_secret: TEST_ADMIN_SECRET });
  for (const encoding of ['gzip', 'br', 'deflate']) {
    const res = await post('/v1/admin/login', login, { ...ORIGIN, 'content-encoding': encoding });
    t.equal(res.status, 415, `${encoding}: 415`);
    t.same(await res.json(), {
      code: 'invalid_argument',
      message: 'unsupported content encoding; send the body uncompressed',
    });
    t.equal(res.headers.get('accept-encoding'), 'identity', 'says what it takes');
    t.equal(res.headers.get('set-cookie'), null, `${encoding}: no admin session was started`);
  }
  const gql = await post('/graphql', JSON.stringify({ query: '{ meta { version } }' }), {
    ...ORIGIN,
    'content-encoding': 'gzip',
  });
  t.equal(gql.status, 415, 'GraphQL as well, in its envelope');
  t.match(await gql.json(), { data: null, errors: [{ extensions: { code: 'INVALID_ARGUMENT' } }] });
  const identity = await post('/v1/admin/login', login, { ...ORIGIN, 'content-encoding': 'identity' });
  t.equal(identity.status, 200, 'identity is no encoding');
});

t.test('an unknown path is 404 not_found', async (t) => {
  const res = await fetch(`${server.url}/v1/nope`);
  t.equal(res.status, 404);
  t.equal(((await res.json()) as { code: string }).code, 'not_found');
});

t.test('CSRF: a state-changing POST without Origin or Referer is 403', async (t) => {
  const res = await post('/v1/admin/login', { admin_secret: TEST_ADMIN_SECRET }, {});
  t.equal(res.status, 403);
  t.equal(((await res.json()) as { code: string }).code, 'permission_denied');
  const withReferer = await post(
    '/v1/admin/login',
    { admin_secret: TEST_ADMIN_SECRET },
    { referer: 'http://localhost/app' },
  );
  t.equal(withReferer.status, 200);
  const graphql = await post('/graphql', { query: 'mutation { _admin_logout { message } }' }, {});
  t.equal(graphql.status, 403);
  t.same(
    await graphql.json(),
    {
      data: null,
      errors: [{ message: 'missing Origin or Referer header', extensions: { code: 'PERMISSION_DENIED' } }],
    },
    'GraphQL gets its own envelope',
  );
});

t.test('CSRF is judged before the body is read: a forged post is refused whatever it carries', async (t) => {
  // The check needs only headers (transports/http/csrf.ts), so a malformed or non-JSON body does
  // not get as far as the parser's 400 or 415.
  for (const [label, body, type] of [
    ['malformed JSON', '{"admin_secret":', 'application/json'],
    ['a form', 'admin_secret=x', 'application/x-www-form-urlencoded'],
  ] as const) {
    const res = await fetch(`${server.url}/v1/admin/login`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    t.equal(res.status, 403, `${label}: 403`);
    t.same(
      await res.json(),
      { code: 'permission_denied', message: 'missing Origin or Referer header' },
      `${label}: the CSRF refusal`,
    );
  }
  const sameBody = await post('/v1/admin/login', '{"admin_secret":');
  t.equal(sameBody.status, 400, 'with an Origin the same body reaches the parser');
});

t.test('GraphQL runs _admin_session, which replaces the admin cookie, from a POST only', async (t) => {
  const login = await post('/v1/admin/login', { admin_secret: TEST_ADMIN_SECRET });
  const cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('service-admin='))!
    .split(';')[0];
  const viaGet = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ _admin_session { message } }')}`, {
    headers: { cookie },
  });
  const body = (await viaGet.json()) as { errors?: { extensions?: { code?: string } }[] };
  t.equal(body.errors?.[0]?.extensions?.code, 'METHOD_NOT_ALLOWED');
  t.same(viaGet.headers.getSetCookie(), [], 'no cookie was replaced');
  const viaPost = await post('/graphql', { query: '{ _admin_session { message } }' }, { ...ORIGIN, cookie });
  t.same(((await viaPost.json()) as { data: unknown }).data, {
    _admin_session: { message: 'admin session refreshed successfully' },
  });
});

t.test('an empty body sent as JSON is an empty input; a poisoned one is still refused', async (t) => {
  const admin = { ...ORIGIN, 'x-service-admin-secret': TEST_ADMIN_SECRET };
  const empty = await post('/v1/admin/logout', '', admin);
  t.equal(empty.status, 200, 'an operation without input takes an empty JSON body');
  const emptyLogin = await post('/v1/admin/login', '');
  t.equal(emptyLogin.status, 400, 'one with required fields names the missing field');
  t.match(await emptyLogin.json(), { code: 'invalid_argument', message: /admin_secret/ });
  const proto = await post('/v1/admin/login', '{"admin_secret":"x","__proto__":{"polluted":1}}');
  t.equal(proto.status, 400);
  t.same(
    await proto.json(),
    { code: 'invalid_argument', message: 'invalid input: a "__proto__" or "constructor.prototype" key is not allowed' },
    'the refusal names the key, not a JSON syntax error',
  );
  const ctor = await post('/v1/admin/login', '{"admin_secret":"x","a":{"constructor":{"prototype":{"x":1}}}}');
  t.equal(ctor.status, 400);
  t.match(await ctor.json(), { code: 'invalid_argument', message: /constructor\.prototype/ });
});

t.test('bad input is a clear 400 in the envelope', async (t) => {
  const malformed = await post('/v1/admin/login', '{"admin_secret":');
  t.equal(malformed.status, 400);
  t.same(await malformed.json(), { code: 'invalid_argument', message: 'request body is not valid JSON' });
  const unknown = await post('/v1/admin/login', { admin_secret: 'x', extra: 1 });
  t.equal(unknown.status, 400);
  t.match(await unknown.json(), { code: 'invalid_argument', message: /extra/ });
  const wrongType = await post('/v1/admin/login', { admin_secret: 42 });
  t.equal(wrongType.status, 400);
  t.match(await wrongType.json(), { code: 'invalid_argument', message: /admin_secret/ });
  const missing = await post('/v1/admin/login', {});
  t.equal(missing.status, 400);
  const oversized = await post('/v1/admin/login', { admin_secret: 'x'.repeat(5000) });
  t.equal(oversized.status, 400);
  const huge = await post('/v1/admin/login', { admin_secret: 'x'.repeat(2_000_000) });
  t.equal(huge.status, 413);
  t.equal(((await huge.json()) as { code: string }).code, 'invalid_argument');
});

t.test('admin: secret header, wrong secret, cookie session, logout', async (t) => {
  const noAuth = await fetch(`${server.url}/v1/admin/meta`);
  t.equal(noAuth.status, 401);
  t.same(await noAuth.json(), { code: 'unauthenticated', message: 'unauthorized' });
  const header = await fetch(`${server.url}/v1/admin/meta`, {
    headers: { 'x-service-admin-secret': TEST_ADMIN_SECRET },
  });
  t.equal(header.status, 200);
  t.match(await header.json(), { roles: Array, default_roles: Array, protected_roles: Array });
  const wrong = await post('/v1/admin/login', { admin_secret: 'nope' });
  t.equal(wrong.status, 401);
  const login = await post('/v1/admin/login', { admin_secret: TEST_ADMIN_SECRET });
  t.equal(login.status, 200);
  const setCookie = login.headers.get('set-cookie') ?? '';
  t.match(setCookie, /^service-admin=[^;]+;.*HttpOnly/i);
  t.notMatch(setCookie, new RegExp(TEST_ADMIN_SECRET), 'the cookie is not the secret');
  const cookie = setCookie.split(';')[0];
  const session = await fetch(`${server.url}/v1/admin/session`, { headers: { cookie } });
  t.equal(session.status, 200);
  const fresh = (session.headers.get('set-cookie') ?? '').split(';')[0];
  t.not(fresh, cookie, 'session rotates the cookie');
  t.equal(
    (await fetch(`${server.url}/v1/admin/session`, { headers: { cookie } })).status,
    401,
    'the old cookie is spent',
  );
  const logout = await post('/v1/admin/logout', {}, { ...ORIGIN, cookie: fresh });
  t.equal(logout.status, 200);
  t.equal(
    (await fetch(`${server.url}/v1/admin/meta`, { headers: { cookie: fresh } })).status,
    401,
    'logout ends the session',
  );
});

t.test('CORS allows the contract request headers with credentials', async (t) => {
  // A loopback origin is the own site of this loopback service (--allowed-origins *).
  const res = await fetch(`${server.url}/v1/admin/login`, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://localhost:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-authorizer-url,x-service-admin-secret,content-type',
    },
  });
  t.ok(res.status === 204 || res.status === 200);
  t.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:5173');
  t.equal(res.headers.get('access-control-allow-credentials'), 'true');
  const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
  for (const h of [
    'x-authorizer-url',
    'x-authorizer-client-id',
    'x-service-admin-secret',
    'authorization',
    'content-type',
  ])
    t.ok(allowed.includes(h), h);
});

t.test('security headers are set', async (t) => {
  const res = await fetch(`${server.url}/v1/meta`);
  t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  t.equal(res.headers.get('x-frame-options'), 'DENY');
  t.ok(res.headers.get('content-security-policy'));
});

t.test('health, readiness and metrics on their own listener only', async (t) => {
  const h = await fetch(`${server.url}/healthz`);
  t.equal(h.status, 200);
  t.same(await h.json(), { status: 'ok' });
  const r = await fetch(`${server.url}/readyz`);
  t.same(await r.json(), { status: 'ready' });
  t.equal((await fetch(`${server.url}/metrics`)).status, 404, 'not on the main port');
  const m = await fetch(`${server.metricsUrl}/metrics`);
  t.equal(m.status, 200);
  t.match(await m.text(), /latchkey_http_requests_total/);
});

t.test('metrics count requests by method, route and status, and time them', async (t) => {
  const scrape = async () => (await fetch(`${server.metricsUrl}/metrics`)).text();
  const count = (text: string, labels: string) =>
    Number(new RegExp(`latchkey_http_requests_total\\{${labels}\\} (\\d+)`).exec(text)?.[1] ?? 0);
  const before = await scrape();
  for (let i = 0; i < 3; i++) await (await fetch(`${server.url}/v1/meta`)).text();
  await (await fetch(`${server.url}/v1/meta`, { method: 'DELETE', headers: ORIGIN })).text();
  await (await fetch(`${server.url}/no/such/route`)).text();
  await (await post('/v1/admin/login', {}, {})).text(); // no Origin: refused by the CSRF check
  const after = await scrape();
  t.equal(
    count(after, 'method="GET",route="/v1/meta",status="200"') -
      count(before, 'method="GET",route="/v1/meta",status="200"'),
    3,
  );
  t.equal(
    count(after, 'method="DELETE",route="/v1/meta",status="405"') -
      count(before, 'method="DELETE",route="/v1/meta",status="405"'),
    1,
  );
  t.equal(
    count(after, 'method="GET",route="unmatched",status="404"') -
      count(before, 'method="GET",route="unmatched",status="404"'),
    1,
  );
  t.equal(
    count(after, 'method="POST",route="/v1/admin/login",status="403"') -
      count(before, 'method="POST",route="/v1/admin/login",status="403"'),
    1,
  );
  t.match(after, /latchkey_http_request_duration_seconds_count\{method="GET",route="\/v1\/meta"\} \d+/);
  // Timed from the request's start, not zero and not since some earlier stamp.
  const sum = (labels: string) =>
    Number(
      new RegExp(`latchkey_http_request_duration_seconds_sum\\{${labels}\\} ([\\d.e+-]+)`).exec(after)?.[1] ??
        Number.NaN,
    );
  for (const labels of ['method="GET",route="/v1/meta"', 'method="GET",route="unmatched"']) {
    const seconds = sum(labels);
    t.ok(seconds > 0 && seconds < 60, `${labels}: duration sum ${seconds} s`);
  }
});

t.test('deprecated mutations fail with the exact texts', async (t) => {
  const expected: Record<string, string> = {
    _update_env: 'deprecated. please configure env via cli args',
    _admin_signup: 'deprecated. please configure admin secret via cli args',
    _generate_jwt_keys: 'deprecated. please configure jwt keys via cli args',
  };
  for (const [field, text] of Object.entries(expected)) {
    const res = await post('/graphql', { query: `mutation { ${field} { message } }` });
    const body = (await res.json()) as { errors: { message: string }[] };
    t.equal(body.errors[0].message, text, field);
  }
});

t.test('JWKS never publishes an HMAC secret', async (t) => {
  const res = await fetch(`${server.url}/.well-known/jwks.json`);
  t.same(await res.json(), { keys: [] });
});

t.test('healthz and readyz answer 503 when the database is unreachable', async (t) => {
  const s = await startTestServer({ plugins: basePlugins });
  s.kernel.service('health').drain();
  t.equal((await fetch(`${s.url}/readyz`)).status, 503, 'a draining node is not ready');
  t.equal((await fetch(`${s.url}/healthz`)).status, 200, 'but still alive');
  await s.kernel.storage.close();
  const h = await fetch(`${s.url}/healthz`);
  t.equal(h.status, 503);
  t.same(await h.json(), { status: 'unhealthy' });
  const r = await fetch(`${s.url}/readyz`);
  t.equal(r.status, 503);
  t.same(await r.json(), { status: 'not ready' });
  await s.close();
});

t.test('rate limit per client IP; X-Forwarded-For only from trusted proxies', async (t) => {
  const s = await startTestServer({ plugins: basePlugins, flags: { 'rate-limit-per-minute': 3 } });
  for (let i = 0; i < 3; i++)
    t.equal((await fetch(`${s.url}/v1/meta`, { headers: { 'x-forwarded-for': `10.0.0.${i}` } })).status, 200);
  const limited = await fetch(`${s.url}/v1/meta`, { headers: { 'x-forwarded-for': '10.0.0.99' } });
  t.equal(limited.status, 429, 'X-Forwarded-For from an untrusted peer does not escape the limit');
  t.equal(((await limited.json()) as { code: string }).code, 'resource_exhausted');
  t.ok(limited.headers.get('retry-after'));
  const limitedGraphql = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...ORIGIN },
    body: JSON.stringify({ query: '{ meta { version } }' }),
  });
  t.equal(limitedGraphql.status, 429);
  t.ok(limitedGraphql.headers.get('retry-after'));
  t.same(
    await limitedGraphql.json(),
    { data: null, errors: [{ message: 'too many requests', extensions: { code: 'RESOURCE_EXHAUSTED' } }] },
    'GraphQL gets its own envelope',
  );
  // One budget per client over every transport, gRPC included.
  const grpc = grpcClient(s.grpcAddress, [...s.kernel.operations.values()]);
  t.teardown(() => grpc.close());
  const refused = (await grpc.call('meta').then(
    () => null,
    (err: unknown) => err,
  )) as { code: string; grpcStatus: number; message: string; metadata: Record<string, string[]> } | null;
  t.match(
    refused,
    { code: 'resource_exhausted', grpcStatus: 8, message: 'too many requests' },
    'gRPC is limited by the same budget (RESOURCE_EXHAUSTED)',
  );
  t.ok(Number(refused?.metadata['retry-after']?.[0]) >= 1, 'with retry-after, as REST');
  await s.close();
  const fresh = await startTestServer({ plugins: basePlugins, flags: { 'rate-limit-per-minute': 2 } });
  const grpcFresh = grpcClient(fresh.grpcAddress, [...fresh.kernel.operations.values()]);
  t.teardown(() => grpcFresh.close());
  t.ok(await grpcFresh.call('meta'), 'gRPC call 1');
  t.ok(await grpcFresh.call('meta'), 'gRPC call 2');
  t.equal((await fetch(`${fresh.url}/v1/meta`)).status, 429, 'and gRPC calls count against REST');
  await fresh.close();
  const trusted = await startTestServer({
    plugins: basePlugins,
    flags: { 'rate-limit-per-minute': 2, 'trusted-proxies': ['127.0.0.1/32'] },
  });
  for (let i = 0; i < 4; i++) {
    t.equal(
      (await fetch(`${trusted.url}/v1/meta`, { headers: { 'x-forwarded-for': `203.0.113.${i}` } })).status,
      200,
      'each forwarded client has its own bucket',
    );
  }
  await trusted.close();
});
