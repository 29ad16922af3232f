/**
 * Requests refused before any route sees them get the REST envelope `{code, message}` and the
 * connection is closed (transports/http/client-errors.ts): request-smuggling shapes, bad
 * framing, oversized headers and URLs that do not decode. Black-box over a raw socket.
 */
import { connect } from 'node:net';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());
const { port } = new URL(server.url);

/** Sends raw bytes and resolves with the whole answer once the server closes the connection. */
function raw(bytes: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.once('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      try {
        resolve({ status, body: JSON.parse(text) });
      } catch {
        reject(new Error(`not JSON: ${answer.slice(0, 300)}`));
      }
    });
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
}

const host = `Host: 127.0.0.1:${port}\r\n`;

t.test('request smuggling shapes and bad framing: 400 invalid_argument in the envelope', async (t) => {
  const shapes: [string, string][] = [
    [
      'Transfer-Encoding with Content-Length',
      `POST /v1/meta HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`,
    ],
    ['two Content-Length headers', `POST /v1/meta HTTP/1.1\r\n${host}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab`],
    ['a negative Content-Length', `POST /v1/meta HTTP/1.1\r\n${host}Content-Length: -1\r\n\r\n`],
    ['not HTTP at all', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
  ];
  for (const [what, bytes] of shapes) {
    const r = await raw(bytes);
    t.equal(r.status, 400, `${what}: 400`);
    t.same(r.body, { code: 'invalid_argument', message: 'malformed HTTP request' }, `${what}: envelope`);
  }
});

t.test("a refused request line under a surface of its own: that surface's error shape", async (t) => {
  const smuggle = (path: string) =>
    `POST ${path} HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`;
  const scim = await raw(smuggle('/scim/v2/Users'));
  t.equal(scim.status, 400);
  t.same(scim.body, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: '400',
    scimType: 'invalidSyntax',
    detail: 'malformed HTTP request',
  });
  const oauth = await raw(smuggle('/oauth/token'));
  t.equal(oauth.status, 400);
  t.same(oauth.body, { error: 'invalid_request', error_description: 'malformed HTTP request' });
});

t.test('headers too large: 431 in the envelope', async (t) => {
  const r = await raw(`GET /v1/meta HTTP/1.1\r\n${host}Cookie: a=${'x'.repeat(70_000)}\r\n\r\n`);
  t.equal(r.status, 431);
  t.same(r.body, { code: 'invalid_argument', message: 'request headers are too large' });
});

t.test('a URL that does not decode: 400 in the envelope', async (t) => {
  const r = await fetch(`${server.url}/v1/%E0%A4%A`);
  t.equal(r.status, 400);
  t.same(await r.json(), { code: 'invalid_argument', message: 'malformed URL' });
});

t.test('the server still answers afterwards', async (t) => {
  t.equal((await fetch(`${server.url}/v1/meta`)).status, 200);
});
