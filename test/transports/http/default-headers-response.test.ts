/**
 * The default headers written by the standalone server's responses themselves
 * (transports/http/default-headers-response.ts): on the wire exactly once each, replaced by a
 * response's own, left out where a route takes one away, in whatever form a handler passes its
 * headers to Node. Read from `rawHeaders`, where a header sent twice shows twice (fetch would join
 * them into one value).
 */
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { basePlugins, defaultPlugins } from '../../../plugins/default.js';
import {
  defaultBlockOf,
  defaultHeadersResponse,
  omitDefault,
  sendNoStore,
} from '../../../transports/http/default-headers-response.js';
import { defaultHeaders } from '../../../transports/http/security-headers.js';
import { startTestServer } from '../../helpers/server.js';

/** Each header's values, by lower-case name, in the order sent. */
function sent(res: IncomingMessage): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i].toLowerCase();
    out.set(name, [...(out.get(name) ?? []), res.rawHeaders[i + 1]]);
  }
  return out;
}

function fetchRaw(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Map<string, string[]> }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: sent(res) }));
    }).on('error', reject);
  });
}

const DEFAULTS = defaultHeaders(false);

t.test(
  "a plain Node server with the class: the defaults once, a handler's own in their place, in every form Node takes",
  async (t) => {
    const Response = defaultHeadersResponse(DEFAULTS);
    if (!Response) {
      t.fail('this Node has _storeHeader(firstLine, headers): the class should be available');
      return;
    }
    const handlers: Record<string, (res: ServerResponse) => void> = {
      '/plain': (res) => res.end('x'),
      '/object': (res) =>
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Security-Policy': "default-src 'self'" }).end('x'),
      '/flat-array': (res) => res.writeHead(200, ['Vary', 'Accept', 'Content-Type', 'text/plain']).end('x'),
      '/nested-array': (res) => res.writeHead(200, [['X-Frame-Options', 'SAMEORIGIN']]).end('x'),
      '/progressive': (res) => {
        res.setHeader('Referrer-Policy', 'same-origin');
        res.end('x');
      },
      '/no-store': (res) => {
        sendNoStore(res);
        res.end('x');
      },
      '/no-store-own': (res) => {
        sendNoStore(res);
        res.setHeader('Cache-Control', 'max-age=60');
        res.end('x');
      },
      '/omitted': (res) => {
        omitDefault(res, 'x-frame-options');
        res.end('x');
      },
    };
    const server = createServer({ ServerResponse: Response }, (req, res) => handlers[req.url ?? '']?.(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const plain = await fetchRaw(`${base}/plain`);
    for (const [name, value] of Object.entries(DEFAULTS)) t.same(plain.headers.get(name), [value], `${name} once`);

    const object = await fetchRaw(`${base}/object`);
    t.same(
      object.headers.get('content-security-policy'),
      ["default-src 'self'"],
      "the handler's CSP, not the default beside it",
    );
    t.same(object.headers.get('x-frame-options'), ['DENY'], 'the other defaults stay');

    const flat = await fetchRaw(`${base}/flat-array`);
    t.same(flat.headers.get('vary'), ['Accept']);
    t.same(flat.headers.get('x-content-type-options'), ['nosniff']);

    const nested = await fetchRaw(`${base}/nested-array`);
    t.same(nested.headers.get('x-frame-options'), ['SAMEORIGIN']);

    const progressive = await fetchRaw(`${base}/progressive`);
    t.same(
      progressive.headers.get('referrer-policy'),
      ['same-origin'],
      'a header set with setHeader, any case, replaces the default',
    );

    t.equal(plain.headers.get('cache-control'), undefined, 'no-store only where asked for');
    t.same((await fetchRaw(`${base}/no-store`)).headers.get('cache-control'), ['no-store']);
    t.same(
      (await fetchRaw(`${base}/no-store-own`)).headers.get('cache-control'),
      ['max-age=60'],
      "the response's own cache-control instead",
    );

    const omitted = await fetchRaw(`${base}/omitted`);
    t.equal(omitted.headers.get('x-frame-options'), undefined, 'a default taken away is not sent');
    t.same(omitted.headers.get('content-security-policy'), [DEFAULTS['content-security-policy']]);

    t.equal(
      defaultBlockOf(new Response(new (await import('node:http')).IncomingMessage(null as never))),
      Object.entries(DEFAULTS)
        .map(([n, v]) => `${n}: ${v}\r\n`)
        .join(''),
    );
  },
);

t.test('defaults are checked once, as Node would check them', async (t) => {
  t.throws(() => defaultHeadersResponse({ 'x-bad': 'a\r\nb' }), /Invalid character/);
  t.throws(() => defaultHeadersResponse({ 'X-Upper': 'a' }), /lower-case/);
  t.throws(() => defaultHeadersResponse({ 'cache-control': 'no-cache' }), /per response/);
  const { ServerResponse, IncomingMessage } = await import('node:http');
  t.equal(
    sendNoStore(new ServerResponse(new IncomingMessage(null as never))),
    false,
    "Node's own response: the caller sets the header",
  );
});

t.test('the real server: every answer carries each default once, pages their own', async (t) => {
  const server = await startTestServer({ plugins: defaultPlugins, flags: { 'enable-login-page': true } });
  t.teardown(() => server.close());
  const base = server.url.replace('localhost', '127.0.0.1');
  for (const path of ['/v1/meta', '/v1/no-such-route', '/.well-known/jwks.json']) {
    const res = await fetchRaw(`${base}${path}`);
    for (const [name, value] of Object.entries(DEFAULTS))
      t.same(res.headers.get(name), [value], `${path}: ${name} once`);
    t.equal(res.headers.get('strict-transport-security'), undefined, 'no HSTS on an http --url');
  }
  const page = await fetchRaw(`${base}/app?return_to=%2Fapp`);
  t.equal(page.status, 200);
  t.equal(page.headers.get('content-security-policy')?.length, 1, 'the page sends one CSP');
  t.notSame(
    page.headers.get('content-security-policy'),
    [DEFAULTS['content-security-policy']],
    "and it is the page's own",
  );
  t.same(page.headers.get('referrer-policy'), ['same-origin']);
  t.same(page.headers.get('x-content-type-options'), ['nosniff']);
  const cors = await fetchRaw(`${base}/v1/meta`, { origin: 'http://localhost:3000' });
  t.same(
    cors.headers.get('access-control-allow-origin'),
    ['http://localhost:3000'],
    'the CORS answer beside the defaults',
  );
  t.same(cors.headers.get('vary'), ['Origin']);
  const refusal = await fetchRaw(`${base}/v1/profile`);
  t.equal(refusal.status, 401);
  t.same(refusal.headers.get('cache-control'), ['no-store'], 'no-store once on a REST answer about its caller');
});

t.test('an https --url adds HSTS to the defaults the responses write', async (t) => {
  const server = await startTestServer({ plugins: basePlugins, flags: { url: 'https://auth.example.test' } });
  t.teardown(() => server.close());
  const res = await fetchRaw(`${server.url.replace('localhost', '127.0.0.1')}/v1/meta`);
  t.same(res.headers.get('strict-transport-security'), ['max-age=31536000; includeSubDomains']);
  t.same(res.headers.get('x-frame-options'), ['DENY']);
});
