/**
 * `--disable-admin-header-auth`: the `x-service-admin-secret` header no longer admits anyone, on
 * REST or GraphQL; the `service-admin` session cookie set by `POST /v1/admin/login` is honored,
 * `GET /v1/admin/session` replaces it with a fresh one, and `POST /v1/admin/logout` ends it.
 */
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

t.test('with --disable-admin-header-auth only the admin cookie is honored', async (t) => {
  const server = await startTestServer({ flags: { 'disable-admin-header-auth': true, 'admin-cookie-secure': false } });
  t.teardown(() => server.close());
  const base = server.url;
  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, ...headers },
      body: JSON.stringify(body),
    });

  const byHeader = await post('/v1/admin/users', {}, { 'x-service-admin-secret': TEST_ADMIN_SECRET });
  t.equal(byHeader.status, 401, 'the header is refused on REST');
  t.match(await byHeader.json(), { code: 'unauthenticated' });
  const graphqlByHeader = (await (
    await post('/graphql', { query: '{ _admin_meta { roles } }' }, { 'x-service-admin-secret': TEST_ADMIN_SECRET })
  ).json()) as { errors?: { extensions?: { code?: string } }[] };
  t.equal(graphqlByHeader.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED', 'and on GraphQL');

  const wrongLogin = await post('/v1/admin/login', { admin_secret: 'not-the-secret' }, {});
  t.equal(wrongLogin.status, 401, 'a wrong secret opens no session');
  t.equal(wrongLogin.headers.get('set-cookie'), null);

  const login = await post('/v1/admin/login', { admin_secret: TEST_ADMIN_SECRET }, {});
  t.equal(login.status, 200);
  t.match(await login.json(), { message: String });
  const setCookie = login.headers.get('set-cookie') ?? '';
  t.match(setCookie, /^service-admin=/, 'the service-admin cookie is set');
  t.match(setCookie, /HttpOnly/i);
  const cookie = setCookie.split(';')[0]!;

  const byCookie = await post('/v1/admin/users', {}, { cookie });
  t.equal(byCookie.status, 200, 'the cookie is honored');
  t.match(await byCookie.json(), { users: [], pagination: { total: 0 } });
  const session = await fetch(`${base}/v1/admin/session`, { headers: { cookie } });
  t.equal(session.status, 200);
  const fresh = (session.headers.get('set-cookie') ?? '').split(';')[0]!;
  t.match(fresh, /^service-admin=/, 'GET /v1/admin/session issues a fresh cookie');
  t.equal((await post('/v1/admin/users', {}, { cookie })).status, 401, 'which replaces the old one');

  const logout = await post('/v1/admin/logout', {}, { cookie: fresh });
  t.equal(logout.status, 200);
  t.equal((await post('/v1/admin/users', {}, { cookie: fresh })).status, 401, 'logout ends the session');
});
