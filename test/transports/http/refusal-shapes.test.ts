/**
 * Every refusal the HTTP layer makes answers in its surface's protocol shape, whichever layer
 * makes it (transports/http/refusal-shapes.ts): REST `{code, message}`, GraphQL `{data, errors}`,
 * RFC 6749 §5.2 on the OAuth endpoints (RFC 7591 §3.2.2 on registration), RFC 7644 §3.12 on
 * SCIM, JSON-RPC 2.0 on MCP. Each refusal kind is fed to each surface of a started server, and the
 * status, the shape and the headers are checked.
 */
import { request as httpRequest } from 'node:http';
import t, { type Test } from 'tap';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { admin } from '../../plugins/organizations/client.js';

type Surface = 'rest' | 'graphql' | 'oauth' | 'oauth-registration' | 'scim' | 'json-rpc';

interface Target {
  surface: Surface;
  path: string;
  /** The body type the endpoint reads. */
  type: string;
  /** Whether a POST needs an Origin (the CSRF rule) there. */
  csrf: boolean;
}

const TARGETS: Target[] = [
  { surface: 'rest', path: '/v1/signup', type: 'application/json', csrf: true },
  { surface: 'graphql', path: '/graphql', type: 'application/json', csrf: true },
  { surface: 'oauth', path: '/oauth/token', type: 'application/x-www-form-urlencoded', csrf: false },
  { surface: 'oauth', path: '/oauth/revoke', type: 'application/x-www-form-urlencoded', csrf: false },
  { surface: 'oauth', path: '/oauth/introspect', type: 'application/x-www-form-urlencoded', csrf: false },
  { surface: 'oauth-registration', path: '/oauth/register', type: 'application/json', csrf: false },
  { surface: 'scim', path: '/scim/v2/Users', type: 'application/scim+json', csrf: false },
  { surface: 'json-rpc', path: '/mcp', type: 'application/json', csrf: false },
];

const BODY_LIMIT = 4096;
const FLAGS = {
  'mcp-enabled': true,
  'enable-dynamic-client-registration': true,
  'body-limit': BODY_LIMIT,
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over its own connection (node:http, which sends any method, TRACE included). */
function send(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: Number(port),
        method,
        path,
        headers: { origin: server.url, ...headers },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** Checks the answer's shape for its surface; returns the parsed body. */
function assertShape(t: Test, surface: Surface, answer: Answer, what: string): Record<string, unknown> {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    t.fail(`${what}: not JSON: ${answer.text.slice(0, 200)}`);
    return body;
  }
  const keys = Object.keys(body).sort();
  switch (surface) {
    case 'rest':
      t.same(keys, ['code', 'message'], `${what}: {code, message}`);
      t.match(answer.headers['content-type'], /^application\/json/, `${what}: JSON`);
      break;
    case 'graphql':
      t.same(keys, ['data', 'errors'], `${what}: {data, errors}`);
      t.equal(body.data, null, `${what}: data null`);
      t.match(body.errors, [{ message: String, extensions: { code: /^[A-Z_]+$/ } }], `${what}: errors[]`);
      break;
    case 'oauth':
    case 'oauth-registration':
      t.same(keys, ['error', 'error_description'], `${what}: {error, error_description}`);
      t.match(answer.headers['content-type'], /^application\/json/, `${what}: JSON`);
      t.equal(answer.headers['cache-control'], 'no-store', `${what}: no-store`);
      break;
    case 'scim':
      t.match(body, { schemas: [SCIM_ERROR], status: String(answer.status), detail: String }, `${what}: SCIM error`);
      t.notOk('code' in body || 'message' in body, `${what}: nothing of REST's envelope`);
      t.match(answer.headers['content-type'], /^application\/scim\+json/, `${what}: application/scim+json`);
      break;
    case 'json-rpc':
      t.same(keys, ['error', 'id', 'jsonrpc'], `${what}: JSON-RPC error object`);
      t.match(body, { jsonrpc: '2.0', id: null, error: { code: Number, message: String } }, `${what}: JSON-RPC 2.0`);
      break;
  }
  return body;
}

/** The code each surface gives a kind, where the table fixes one. */
function assertCode(
  t: Test,
  surface: Surface,
  body: Record<string, unknown>,
  codes: Partial<Record<Surface, unknown>>,
  what: string,
): void {
  const expected = codes[surface];
  if (expected === undefined) return;
  const actual =
    surface === 'rest'
      ? body.code
      : surface === 'graphql'
        ? (body.errors as { extensions: { code: string } }[])[0].extensions.code
        : surface === 'scim'
          ? (body.scimType ?? null)
          : surface === 'json-rpc'
            ? (body.error as { code: number }).code
            : body.error;
  t.equal(actual, expected, `${what}: code ${String(expected)}`);
}

const server = await startTestServer({ flags: FLAGS });
t.teardown(() => server.close());

t.test('malformed body: 400', async (t) => {
  for (const target of TARGETS) {
    // A JSON body that does not parse; the form endpoints read JSON too (and refuse it there).
    const r = await send(server, 'POST', target.path, { 'content-type': 'application/json' }, '{"a":');
    const what = `${target.path} malformed`;
    t.equal(r.status, 400, `${what}: 400`);
    const body = assertShape(t, target.surface, r, what);
    assertCode(
      t,
      target.surface,
      body,
      {
        rest: 'invalid_argument',
        graphql: 'INVALID_ARGUMENT',
        oauth: 'invalid_request',
        'oauth-registration': 'invalid_client_metadata',
        scim: 'invalidSyntax',
        'json-rpc': -32700,
      },
      what,
    );
  }
});

t.test('unsupported media type: 415', async (t) => {
  for (const target of TARGETS) {
    const r = await send(server, 'POST', target.path, { 'content-type': 'application/xml' }, '<a/>');
    t.equal(r.status, 415, `${target.path}: 415`);
    assertShape(t, target.surface, r, `${target.path} xml`);
  }
});

t.test('a compressed body (Content-Encoding: gzip): 415 with Accept-Encoding: identity', async (t) => {
  for (const target of TARGETS) {
    const r = await send(server, 'POST', target.path, { 'content-type': target.type, 'content-encoding': 'gzip' }, 'x');
    t.equal(r.status, 415, `${target.path}: 415`);
    t.equal(r.headers['accept-encoding'], 'identity', `${target.path}: Accept-Encoding`);
    assertShape(t, target.surface, r, `${target.path} gzip`);
  }
});

t.test('a method the path does not take: 405 with Allow', async (t) => {
  for (const target of TARGETS) {
    // TRACE is routed nowhere: the not-found handler finds the path's methods.
    const r = await send(server, 'TRACE', target.path);
    t.equal(r.status, 405, `${target.path}: 405`);
    t.match(r.headers.allow, /POST/, `${target.path}: Allow`);
    const body = assertShape(t, target.surface, r, `${target.path} TRACE`);
    assertCode(t, target.surface, body, { rest: 'method_not_allowed', graphql: 'METHOD_NOT_ALLOWED' }, target.path);
  }
});

t.test('OPTIONS that is not a CORS preflight: 400', async (t) => {
  for (const target of TARGETS) {
    const r = await send(server, 'OPTIONS', target.path, { origin: '' });
    t.equal(r.status, 400, `${target.path}: 400`);
    assertShape(t, target.surface, r, `${target.path} OPTIONS`);
  }
  // A real preflight is still answered by CORS.
  const preflight = await send(server, 'OPTIONS', '/oauth/token', {
    origin: 'https://app.example',
    'access-control-request-method': 'POST',
  });
  t.equal(preflight.status, 204);
});

t.test('CSRF: a state-changing request without Origin or Referer is 403 where the rule applies', async (t) => {
  for (const target of TARGETS) {
    const r = await send(server, 'POST', target.path, { origin: '', 'content-type': 'application/json' }, '{}');
    if (!target.csrf) {
      t.not(r.status, 403, `${target.path}: exempt (back-end clients send no Origin)`);
      continue;
    }
    t.equal(r.status, 403, `${target.path}: 403`);
    const body = assertShape(t, target.surface, r, `${target.path} CSRF`);
    assertCode(t, target.surface, body, { rest: 'permission_denied', graphql: 'PERMISSION_DENIED' }, target.path);
  }
});

t.test('a body over --body-limit: 413 and the connection closed, declared or chunked', async (t) => {
  const big = 'x'.repeat(BODY_LIMIT * 4);
  for (const target of TARGETS) {
    const declared = await send(server, 'POST', target.path, { 'content-type': target.type }, big);
    t.equal(declared.status, 413, `${target.path} Content-Length: 413`);
    t.equal(declared.headers.connection, 'close', `${target.path}: Connection: close`);
    assertShape(t, target.surface, declared, `${target.path} 413`);
    const chunked = await send(
      server,
      'POST',
      target.path,
      { 'content-type': target.type, 'transfer-encoding': 'chunked' },
      big,
    );
    t.equal(chunked.status, 413, `${target.path} chunked: 413`);
    t.equal(chunked.headers.connection, 'close', `${target.path} chunked: Connection: close`);
    assertShape(t, target.surface, chunked, `${target.path} chunked 413`);
  }
});

t.test('a path not routed under a surface: 404 in that surface shape', async (t) => {
  const cases: [Surface, string][] = [
    ['rest', '/v1/no_such_operation'],
    ['graphql', '/graphql/nothing'],
    ['oauth', '/oauth/token/nothing'],
    ['json-rpc', '/mcp/nothing'],
  ];
  for (const [surface, path] of cases) {
    const r = await send(server, 'GET', path);
    t.equal(r.status, 404, `${path}: 404`);
    const body = assertShape(t, surface, r, path);
    assertCode(t, surface, body, { rest: 'not_found', graphql: 'NOT_FOUND' }, path);
  }
  // SCIM answers every path under /scim/v2 itself: without a token a 401, with one a 404.
  const anonymous = await send(server, 'GET', '/scim/v2/NoSuchResource');
  t.equal(anonymous.status, 401);
  assertShape(t, 'scim', anonymous, 'SCIM unknown path without a token');
  const org = await admin(server, 'create_organization', { name: 'refusals' });
  const { token } = (await admin(server, 'create_scim_endpoint', { org_id: org.id })) as { token: string };
  const known = await send(server, 'GET', '/scim/v2/NoSuchResource', { authorization: `Bearer ${token}` });
  t.equal(known.status, 404);
  assertShape(t, 'scim', known, 'SCIM unknown path');
  // A route with a parameter is matched by the router; a method nobody routes finds no route at all.
  const traced = await send(server, 'TRACE', '/scim/v2/Users/some-id');
  t.equal(traced.status, 404);
  assertShape(t, 'scim', traced, 'SCIM TRACE on a parameter route');
});

t.test('a URL that does not decode: 400 in the shape of the surface it is under', async (t) => {
  const cases: [Surface, string][] = [
    ['rest', '/v1/%E0%A4%A'],
    ['scim', '/scim/v2/%E0%A4%A'],
    ['oauth', '/oauth/token/%E0%A4%A'],
    ['json-rpc', '/mcp/%E0%A4%A'],
  ];
  for (const [surface, path] of cases) {
    const r = await send(server, 'GET', path);
    t.equal(r.status, 400, `${path}: 400`);
    assertShape(t, surface, r, path);
  }
});

t.test('MCP without a token: 401 JSON-RPC error with the resource metadata challenge', async (t) => {
  const r = await send(server, 'POST', '/mcp', { 'content-type': 'application/json' }, '{}');
  t.equal(r.status, 401);
  t.match(
    r.headers['www-authenticate'],
    /^Bearer .*resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/,
  );
  assertShape(t, 'json-rpc', r, 'MCP 401');
});

t.test('rate limit: 429 with Retry-After in each surface shape', async (t) => {
  const limited = await startTestServer({ flags: { ...FLAGS, 'rate-limit-per-minute': 2 } });
  t.teardown(() => limited.close());
  // The global budget spent; registration counts in a bucket of its own (20 a minute).
  for (let i = 0; i < 3; i++) await send(limited, 'GET', '/v1/meta');
  for (let i = 0; i < 21; i++)
    await send(limited, 'POST', '/oauth/register', { 'content-type': 'application/json' }, '{}');
  for (const target of TARGETS) {
    const r = await send(limited, 'POST', target.path, { 'content-type': target.type }, '');
    t.equal(r.status, 429, `${target.path}: 429`);
    t.ok(Number(r.headers['retry-after']) >= 1, `${target.path}: Retry-After`);
    const body = assertShape(t, target.surface, r, `${target.path} 429`);
    assertCode(t, target.surface, body, { rest: 'resource_exhausted', graphql: 'RESOURCE_EXHAUSTED' }, target.path);
  }
});
