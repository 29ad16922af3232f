/**
 * The process metrics are prom-client's defaults, with the meaning prom-client documents; the
 * request series count every answered request, those written before any route ran included.
 */
import { connect } from 'node:net';
import t from 'tap';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { HttpMetrics } from '../../../transports/http/metrics.js';
import { startTestServer } from '../../helpers/server.js';

const gauge = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
const names = (text: string): string[] =>
  [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]).filter((n) => !n.startsWith('latchkey_'));

t.test("the process metrics are exactly prom-client's default set", async (t) => {
  const metrics = new HttpMetrics(true);
  const reference = new Registry();
  collectDefaultMetrics({ register: reference });
  t.strictSame(names(await metrics.render()).sort(), names(await reference.metrics()).sort());
  for (const stat of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
    const help = new RegExp(
      `^# HELP nodejs_eventloop_lag_${stat}_seconds The .*(recorded event loop delay|event loop delays)`,
      'm',
    );
    t.match(await metrics.render(), help, `${stat}: prom-client's own gauge and help text`);
  }
});

t.test('a loop held busy shows in the event-loop delay', async (t) => {
  const metrics = new HttpMetrics(true);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const until = performance.now() + 300;
  while (performance.now() < until);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const max = gauge(await metrics.render(), 'nodejs_eventloop_lag_max_seconds');
  t.ok(max > 0.2 && max < 2, `max ${max} s after a 300 ms block`);
});

t.test('without default metrics only the request series are rendered', async (t) => {
  const metrics = new HttpMetrics(false);
  t.strictSame(names(await metrics.render()), []);
});

t.test('every answered request counts on the metrics listener, with its status', async (t) => {
  const server = await startTestServer({ flags: { 'body-limit': 4096 }, requestTimeoutMs: 1_000 });
  t.teardown(() => server.close());
  const port = Number(new URL(server.url).port);
  const count = async (method: string, route: string, status: number): Promise<number> => {
    const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    const line = new RegExp(
      `^latchkey_http_requests_total\\{method="${method}",route="${route.replace(/\//g, '\\/')}",status="${status}"\\} (\\d+)$`,
      'm',
    );
    return Number(line.exec(text)?.[1] ?? 0);
  };
  const big = 'x'.repeat(64 * 1024);
  const head = (path: string, type: string) =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${server.url}\r\nContent-Type: ${type}\r\n`;

  const declared = await rawExchange(
    port,
    `${head('/v1/signup', 'application/json')}Content-Length: ${big.length}\r\n\r\n${big}`,
  );
  t.match(declared, /^HTTP\/1\.1 413 /, 'a declared oversized body is refused from its headers');
  t.equal(await count('POST', '/v1/signup', 413), 1, 'and counted on its route with status 413');

  const chunked = `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`;
  const grown = await rawExchange(
    port,
    `${head('/oauth/token', 'application/x-www-form-urlencoded')}Transfer-Encoding: chunked\r\n\r\n${chunked}`,
  );
  t.match(grown, /^HTTP\/1\.1 413 /, 'a chunked body that grows past the limit is refused by the parser');
  t.equal(await count('POST', '/oauth/token', 413), 1, 'and counted on its route with status 413');

  const smuggled = await rawExchange(
    port,
    `POST /v1/meta HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`,
  );
  t.match(smuggled, /^HTTP\/1\.1 400 /, "bytes Node's parser refuses");
  t.equal(await count('POST', 'unparsed', 400), 1, 'count under route "unparsed" with the method read');

  const stalled = await rawExchange(port, 'GET /v1/meta HTTP/1.1\r\nHost: x\r\n');
  t.match(stalled, /^HTTP\/1\.1 408 /, 'headers that never finish');
  // The request line of headers that never finish is not read (transports/http/client-errors.ts).
  t.equal(await count('unknown', 'unparsed', 408), 1, 'count as a 408 of an unknown method');

  t.equal((await fetch(`${server.url}/v1/%E0%A4%A`)).status, 400, 'a URL that does not decode');
  t.equal(await count('GET', 'unmatched', 400), 1, 'counts under route "unmatched"');

  t.equal((await fetch(`${server.url}/v1/meta`)).status, 200);
  t.equal(await count('GET', '/v1/meta', 200), 1, 'an ordinary answer still counts once');
});

/** Writes `bytes` on a fresh connection and resolves with everything answered once it closes. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.once('close', () => resolve(answer));
    setTimeout(() => socket.destroy(), 8_000).unref();
  });
}
