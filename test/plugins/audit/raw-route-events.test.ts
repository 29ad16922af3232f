/**
 * Security events that happen on raw routes are in the audit log like those of operations, each
 * with its actor, the client address and the user agent: sign-ins through the sign-in service
 * (signup, a magic link redeemed at GET /verify_email, the hosted page's form post) and a refused
 * link; `/oauth/revoke` (and a refused client) and `/logout`; a start with another signing key.
 * A login through an operation that records itself is recorded once, not twice.
 */
import t from 'tap';
import { auditPlugin } from '../../../plugins/audit/index.js';
import type { AuditLogRow } from '../../../plugins/audit/entities.js';
import { keysPlugin } from '../../../plugins/keys/index.js';
import { bootTestKernel } from '../../helpers/kernel.js';
import { sqliteTarget } from '../../helpers/databases.js';
import { TEST_ADMIN_SECRET } from '../../helpers/server.js';
import { PASSWORD, startMailServer } from '../email/helpers.js';

const UA = 'raw-route-audit/1.0';
const { server, sink, close } = await startMailServer({ 'enable-magic-link-login': true, 'enable-login-page': true });
t.teardown(close);

async function call(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    redirect: 'manual',
    headers: { origin: server.url, 'user-agent': UA, ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers };
}

const json = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(`/v1/${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  }).then((r) => ({ ...r, json: JSON.parse(r.text) as Record<string, unknown> }));

const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call(path, {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });

async function rowsOf(action: string): Promise<AuditLogRow[]> {
  await server.kernel.events.drain();
  return (await server.kernel.service('audit').list({ action }, { limit: 100, offset: 0 })).rows;
}
const meta = (row: AuditLogRow) => JSON.parse(row.metadata ?? '{}') as Record<string, unknown>;

t.test('sign-ins through the sign-in service are recorded once each, with address and agent', async (t) => {
  const signup = await json('signup', { email: 'raw@example.com', password: PASSWORD, confirm_password: PASSWORD });
  t.equal(signup.status, 200);
  const userId = (signup.json.user as { id: string }).id;
  const [signedUp] = await rowsOf('user.login');
  t.match(signedUp, {
    actorType: 'user',
    actorId: userId,
    actorEmail: 'raw@example.com',
    resourceType: 'user',
    resourceId: userId,
    ipAddress: '127.0.0.1',
    userAgent: UA,
  });
  t.match(meta(signedUp), { method: 'basic_auth', amr: ['pwd'] });

  t.equal((await json('login', { email: 'raw@example.com', password: PASSWORD })).status, 200);
  const afterLogin = await rowsOf('user.login');
  t.equal(afterLogin.length, 2, "the login operation's own record, and no second one from the sign-in service");
  t.equal(meta(afterLogin[0]).operation, 'login');

  const page = await form('/app/login', { email: 'raw@example.com', password: PASSWORD });
  t.ok(page.status < 400, `the hosted page's form post signs in (${page.status})`);
  const afterPage = await rowsOf('user.login');
  t.equal(afterPage.length, 3, 'recorded once');
  t.match(afterPage[0], { actorId: userId, userAgent: UA, ipAddress: '127.0.0.1' });
});

t.test('a magic link redeemed at GET /verify_email is a login; a refused link a refused one', async (t) => {
  t.equal((await json('magic_link_login', { email: 'link@example.com' })).status, 200);
  const link = (await sink.next('link@example.com')).link(`${server.url}/verify_email?`)!;
  const before = (await rowsOf('user.login')).length;
  const landed = await call(new URL(link).pathname + new URL(link).search);
  t.equal(landed.status, 303, 'signed in, on to the hosted landing');
  const user = await json('admin/user', { email: 'link@example.com' }, { 'x-service-admin-secret': TEST_ADMIN_SECRET });
  const userId = user.json.id as string;
  const rows = await rowsOf('user.login');
  t.equal(rows.length, before + 1);
  t.match(rows[0], { actorType: 'user', actorId: userId, resourceId: userId, userAgent: UA });
  t.match(meta(rows[0]), { method: 'magic_link_login', amr: ['email'] });

  const again = await call(new URL(link).pathname + new URL(link).search);
  t.match(again.headers.get('location'), /error=invalid_token/, 'a link works once');
  const [refused] = await rowsOf('user.login');
  t.match(refused, { actorType: 'anonymous', resourceType: 'user', userAgent: UA, ipAddress: '127.0.0.1' });
  t.match(meta(refused), { outcome: 'failure', error: 'invalid_argument', method: 'email_link' });
  t.notOk(JSON.stringify(await rowsOf('user.login')).includes(new URL(link).searchParams.get('token')!), 'no token');
});

t.test('/oauth/revoke and /logout are recorded; a refused client too', async (t) => {
  const login = await json('login', { email: 'raw@example.com', password: PASSWORD });
  const userId = (login.json.user as { id: string }).id;
  const access = login.json.access_token as string;
  const revoked = await form('/oauth/revoke', { token: access, token_type_hint: 'access_token' });
  t.equal(revoked.status, 200);
  const [revoke] = await rowsOf('token.revoke');
  t.match(revoke, { actorType: 'user', actorId: userId, resourceType: 'session', userAgent: UA });
  t.ok(revoke.resourceId.length > 0, 'the session ended is named');
  t.match(meta(revoke), { endpoint: '/oauth/revoke', type: 'access_token', user_id: userId });
  t.notOk(JSON.stringify(revoke).includes(access), 'never the token');

  const badClient = await form('/oauth/revoke', { token: 'whatever', client_id: 'no-such-client' });
  t.ok(badClient.status >= 400 && badClient.status < 500);
  const [refused] = await rowsOf('token.revoke');
  t.match(refused, { actorType: 'anonymous', userAgent: UA });
  t.match(meta(refused), { outcome: 'failure', error: 'invalid_client' });

  const browser = await json('login', { email: 'raw@example.com', password: PASSWORD });
  const cookies = browser.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const out = await call('/logout', { headers: { cookie: cookies } });
  t.equal(out.status, 200);
  const [logout] = await rowsOf('user.logout');
  t.match(logout, { actorType: 'user', actorId: userId, resourceType: 'session', userAgent: UA });
  t.match(meta(logout), { endpoint: '/logout' });
  t.equal((await call('/logout')).status, 200, 'a logout without a session');
  t.equal((await rowsOf('user.logout')).length, 1, 'ends nothing and is not recorded');
});

t.test('a start with another signing key records a key rotation once', async (t) => {
  const target = await sqliteTarget();
  t.teardown(() => target.dispose());
  const boot = async (secret: string) => {
    const booted = await bootTestKernel({
      plugins: [keysPlugin, auditPlugin],
      database: target,
      flags: { 'jwt-type': 'HS256', 'jwt-secret': secret },
    });
    await booted.kernel.events.drain();
    const { rows } = await booted.kernel.service('audit').list({ action: 'key.rotate' }, { limit: 10, offset: 0 });
    const kid = booted.kernel.service('keys').current.kid;
    await booted.close();
    return { rows, kid };
  };
  const first = await boot('first-signing-secret-0123456789abcdef');
  t.equal(first.rows.length, 0, "a deployment's first key is no rotation");
  t.equal((await boot('first-signing-secret-0123456789abcdef')).rows.length, 0, 'nor is a restart with it');
  const second = await boot('second-signing-secret-0123456789abcdef');
  t.equal(second.rows.length, 1);
  t.match(second.rows[0], {
    action: 'key.rotate',
    resourceType: 'signing_key',
    resourceId: second.kid,
    actorType: 'system',
    actorId: 'configuration',
  });
  t.same(meta(second.rows[0]), { previous_kid: first.kid, algorithm: 'HS256' });
  t.notOk(JSON.stringify(second.rows).includes('signing-secret'), 'never the key');
  t.equal((await boot('second-signing-secret-0123456789abcdef')).rows.length, 1, 'recorded once');
});
