/**
 * The API reference and the playground over HTTP: `/openapi.json` is the document of the
 * server's REST projection (the committed one for the default distribution), `/reference` and
 * `/graphiql` carry their own content-security policy while every other response keeps
 * `default-src 'none'`, their assets come from this server, the playground exists only with
 * `--enable-playground`, and the reference only where REST does.
 */
import t from 'tap';
import { packageInfo } from '../../../../core/package-info.js';
import { buildOpenApi } from '../../../../transports/openapi/openapi.js';
import { startTestServer } from '../../../helpers/server.js';

const server = await startTestServer({ flags: { 'enable-playground': true } });
t.teardown(() => server.close());
const get = (path: string) => fetch(new URL(path, server.url), { redirect: 'manual' });

t.test('GET /openapi.json answers the OpenAPI document of the REST operations', async (t) => {
  const res = await get('/openapi.json');
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  const text = await res.text();
  const ops = [...server.kernel.operations.values()];
  t.equal(text, `${JSON.stringify(buildOpenApi(ops, packageInfo().version), null, 2)}\n`, 'the generated text');
  const doc = JSON.parse(text) as { openapi: string; paths: Record<string, Record<string, unknown>> };
  t.match(doc.openapi, /^3\./);
  t.ok(doc.paths['/v1/login']?.post, 'the login operation is in it');
});

t.test('the API reference page and its assets are served here, under their own policy', async (t) => {
  const page = await get('/reference');
  t.equal(page.status, 200);
  const html = await page.text();
  t.match(html, /swagger-ui/);
  t.notMatch(html, /https?:\/\//, 'no asset from another origin');
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'/);
  t.match(csp, /script-src 'self'(;|$)/, 'scripts from this origin only, nothing inline');
  t.notMatch(csp, /unsafe-eval/);
  const bundle = await get('/reference/static/swagger-ui-bundle.js');
  t.equal(bundle.status, 200);
  t.match(bundle.headers.get('content-type'), /javascript/);
});

t.test('the playground page and its assets are served here, its one inline script allowed by hash', async (t) => {
  const page = await get('/graphiql');
  t.equal(page.status, 200);
  const html = await page.text();
  t.notMatch(html, /https?:\/\//, 'no asset from another origin (no CDN)');
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'/);
  t.match(csp, /script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
  t.notMatch(csp, /unsafe-(inline|eval)/);
  for (const name of ['react.js', 'react-dom.js', 'graphiql.js', 'graphiql.css']) {
    const asset = await get(`/graphiql/assets/${name}`);
    t.equal(asset.status, 200, name);
    await asset.arrayBuffer();
  }
  t.equal((await get('/graphiql/assets/nothing.js')).status, 404);
});

t.test('every other response keeps the strict default policy', async (t) => {
  const meta = await get('/v1/meta');
  const csp = meta.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'/);
  t.notMatch(csp, /script-src|sha256-|unsafe-inline/, 'no page policy leaks onto other responses');
  await meta.arrayBuffer();
});

t.test('without --enable-playground there is no playground; without gRPC (and REST) no reference', async (t) => {
  const plain = await startTestServer({ flags: { 'grpc-port': 0 } });
  t.teardown(() => plain.close());
  for (const path of ['/graphiql', '/openapi.json', '/reference/']) {
    const res = await fetch(new URL(path, plain.url));
    t.equal(res.status, 404, path);
    await res.arrayBuffer();
  }
});
