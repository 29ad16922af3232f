/**
 * GET / is the start page: it links to the hosted login page, the GraphQL playground and the API
 * reference when this server serves them, and every link it shows answers.
 */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const linksOf = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);

t.test('the development preset: login page, playground and reference, each one served', async (t) => {
  const server = await startTestServer({ flags: { 'enable-login-page': true, 'enable-playground': true } });
  t.teardown(() => server.close());
  const res = await fetch(`${server.url}/`, { redirect: 'manual' });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/html/);
  const links = linksOf(await res.text());
  for (const path of ['/app', '/graphiql', '/reference', '/openapi.json', '/.well-known/openid-configuration'])
    t.ok(links.includes(`${server.url}${path}`), `links to ${path}`);
  for (const link of links) {
    const page = await fetch(link, { redirect: 'manual' });
    t.ok(page.status < 400, `${link} answers ${page.status}`);
    await page.arrayBuffer();
  }
});

t.test('without them, the page links only to what is served', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const links = linksOf(await (await fetch(`${server.url}/`)).text());
  t.notOk(
    links.some((l) => l.endsWith('/app')),
    'no login page link',
  );
  t.notOk(
    links.some((l) => l.endsWith('/graphiql')),
    'no playground link',
  );
  t.ok(links.includes(`${server.url}/reference`), 'the API reference is always there');
});
