/**
 * The hosted page's `return_to` (plugins/login-page/routes.ts): after sign-in the browser goes
 * only to a path of this service. A browser drops tabs and newlines inside a URL and reads `\` as
 * `/`, so values that look like paths to a text check can name another site.
 */
import t from 'tap';
import { safeReturn } from '../../../plugins/login-page/routes.js';
import { startTestServer } from '../../helpers/server.js';

t.test('paths of this service are kept, resolved', async (t) => {
  t.equal(safeReturn('/authorize?client_id=a&state=x#top'), '/authorize?client_id=a&state=x#top');
  t.equal(safeReturn('/%2F%2Fevil.example'), '/%2F%2Fevil.example', 'percent-encoded slashes stay one path segment');
  t.equal(safeReturn('/a/./b/../c'), '/a/c', 'what is sent is the resolved path');
});

t.test('anything that could leave the site falls back to /app', async (t) => {
  const refused = [
    '/\t/evil.example/phish',
    '/\t\\evil.example',
    '/\n/evil.example',
    '/\r\n/evil.example',
    '//evil.example',
    '/\\evil.example',
    '/a\\..\\..\\/evil.example',
    '/.//evil.example',
    '/a/../..//evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    'relative/path',
    '/caf\u00e9',
    '/a b',
    '',
    `/${'a'.repeat(5000)}`,
  ];
  for (const value of refused) t.equal(safeReturn(value), '/app', JSON.stringify(value));
  t.equal(safeReturn(undefined), '/app');
  t.equal(safeReturn(['/a']), '/app');
});

t.test('signing in with a hostile return_to lands on /app, never a 500', async (t) => {
  const server = await startTestServer({ flags: { 'enable-login-page': true, 'app-cookie-secure': false } });
  t.teardown(() => server.close());
  const headers = { 'content-type': 'application/json', origin: server.url };
  const password = 'correct-horse-1';
  const signup = await fetch(`${server.url}/v1/signup`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email: 'ada@example.com', password, confirm_password: password }),
  });
  t.equal(signup.status, 200);
  const post = (returnTo: string) =>
    fetch(`${server.url}/app/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: new URLSearchParams({ email: 'ada@example.com', password, return_to: returnTo }).toString(),
    });
  for (const value of ['/\t/evil.example/phish', '/\r\nx', '/caf\u00e9']) {
    const res = await post(value);
    t.equal(res.status, 303, JSON.stringify(value));
    t.equal(res.headers.get('location'), '/app', JSON.stringify(value));
  }
  const ok = await post('/authorize?state=s');
  t.equal(ok.headers.get('location'), '/authorize?state=s', 'a path of the service is followed');
});
