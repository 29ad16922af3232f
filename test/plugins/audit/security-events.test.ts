/**
 * Security events in the audit log (docs/audit.md): login success and failure, logout, password
 * change, a refused password reset, MFA enrollment, token revocation, account deactivation and a
 * failed admin login, each with its actor,
 * resource, client address and user agent, and never the password or token it carried. A
 * plugin's `auditEvents` are recorded from the domain events it emits, with secrets stripped.
 */
import t from 'tap';
import type { AuditLogRow } from '../../../plugins/audit/entities.js';
import { auditPlugin } from '../../../plugins/audit/index.js';
import { definePlugin } from '../../../core/plugin.js';
import { bootTestKernel } from '../../helpers/kernel.js';
import { startTestServer } from '../../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());
const base = { 'content-type': 'application/json', origin: server.url, 'user-agent': 'security-test/2.0' };

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { ...base, ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

async function rowsOf(action: string): Promise<AuditLogRow[]> {
  await server.kernel.events.drain();
  return (await server.kernel.service('audit').list({ action }, { limit: 100, offset: 0 })).rows;
}

const PASSWORD = 'First-pass1';
const NEW_PASSWORD = 'Second-pass2';
const email = 'security@example.com';

t.test('login success and failure, logout, password change, revocation, deactivation', async (t) => {
  const signup = await post('/v1/signup', { email, password: PASSWORD, confirm_password: PASSWORD });
  t.equal(signup.status, 200);
  const userId = (signup.json.user as { id: string }).id;

  const failed = await post('/v1/login', { email, password: 'Wrong-pass9' });
  t.equal(failed.status, 401);
  const [failure] = await rowsOf('user.login');
  t.match(failure, {
    actorType: 'anonymous',
    resourceType: 'user',
    ipAddress: '127.0.0.1',
    userAgent: 'security-test/2.0',
  });
  t.match(JSON.parse(failure.metadata ?? '{}'), { outcome: 'failure', error: 'unauthenticated', identifier: email });

  const login = await post('/v1/login', { email, password: PASSWORD });
  t.equal(login.status, 200);
  const logins = await rowsOf('user.login');
  t.equal(logins.length, 3, "one row per attempt, after the signup's own sign-in");
  t.match(logins[0], { actorType: 'user', actorId: userId, actorEmail: email, resourceId: userId });
  t.notMatch(logins[0].metadata ?? '', /failure/);
  const bearer = { authorization: `Bearer ${login.json.access_token as string}` };

  const profileOnly = await post('/v1/update_profile', { given_name: 'No password here' }, bearer);
  t.equal(profileOnly.status, 200);
  t.equal(
    (await rowsOf('user.password_change')).length,
    0,
    'a profile update without a new password is no password change',
  );
  const changed = await post(
    '/v1/update_profile',
    { old_password: PASSWORD, new_password: NEW_PASSWORD, confirm_new_password: NEW_PASSWORD },
    bearer,
  );
  t.equal(changed.status, 200, JSON.stringify(changed.json));
  t.match(await rowsOf('user.password_change'), [{ actorType: 'user', actorId: userId, resourceId: userId }]);

  const second = await post('/v1/login', { email, password: NEW_PASSWORD });
  const refresh = second.json.refresh_token as string | undefined;
  if (refresh) {
    t.equal((await post('/v1/revoke', { refresh_token: refresh })).status, 200);
    t.equal((await rowsOf('token.revoke')).length, 1, 'a revocation is recorded');
  }
  const bearer2 = { authorization: `Bearer ${second.json.access_token as string}` };
  t.equal((await post('/v1/logout', {}, bearer2)).status, 200);
  const [logout] = await rowsOf('user.logout');
  t.match(logout, { actorType: 'user', actorId: userId, resourceType: 'session' });
  t.ok(logout.resourceId.length > 0, 'the session ended is named');

  const third = await post('/v1/login', { email, password: NEW_PASSWORD });
  t.equal(
    (await post('/v1/deactivate_account', {}, { authorization: `Bearer ${third.json.access_token as string}` })).status,
    200,
  );
  t.match(await rowsOf('user.deactivate'), [{ actorId: userId, resourceId: userId }]);

  const reset = await post('/v1/reset_password', {
    token: 'not-a-reset-token',
    password: 'Third-pass3',
    confirm_password: 'Third-pass3',
  });
  t.ok(reset.status >= 400 && reset.status < 500, 'a bad reset token is refused');
  const [resetFailure] = await rowsOf('user.password_reset');
  t.match(resetFailure, { actorType: 'anonymous', resourceType: 'user' });
  t.match(JSON.parse(resetFailure.metadata ?? '{}'), { outcome: 'failure' });

  const enrolling = await post('/v1/signup', {
    email: 'mfa@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  const enrollerId = (enrolling.json.user as { id: string }).id;
  const setup = await post(
    '/v1/totp_mfa_setup',
    {},
    { authorization: `Bearer ${enrolling.json.access_token as string}` },
  );
  t.equal(setup.status, 200, JSON.stringify(setup.json).slice(0, 200));
  t.match(await rowsOf('mfa.enroll'), [{ actorId: enrollerId, resourceId: enrollerId }]);
  t.same(JSON.parse((await rowsOf('mfa.enroll'))[0].metadata ?? '{}'), { method: 'totp', operation: 'totp_mfa_setup' });
  t.notOk(
    JSON.stringify(await rowsOf('mfa.enroll')).includes(String(setup.json.authenticator_secret)),
    'not the TOTP secret',
  );

  const adminFailed = await post('/v1/admin/login', { admin_secret: 'not-the-secret' });
  t.equal(adminFailed.status, 401);
  const [adminFailure] = await rowsOf('admin.login');
  t.match(adminFailure, { actorType: 'anonymous', resourceType: 'admin_session' });

  const all = JSON.stringify((await server.kernel.service('audit').list({}, { limit: 1000, offset: 0 })).rows);
  for (const secret of [PASSWORD, NEW_PASSWORD, 'Wrong-pass9', 'not-the-secret', login.json.access_token, refresh]) {
    if (typeof secret === 'string') t.notOk(all.includes(secret), 'no password or token in the log');
  }
});

t.test("a plugin's auditEvents are recorded from its domain events", async (t) => {
  const emitter = definePlugin({
    name: 'key-rotator',
    description: 'emits an audited event outside any operation',
    auditEvents: {
      'keys.rotated': {
        action: 'key.rotate',
        resourceType: 'signing_key',
        resourceId: (p) => String(p.kid),
        metadata: (p) => ({ algorithm: p.alg, private_key: p.private_key }),
      },
    },
  });
  const booted = await bootTestKernel({ plugins: [auditPlugin, emitter] });
  t.teardown(() => booted.close());
  booted.kernel.events.emit('keys.rotated', {
    kid: 'k-2',
    alg: 'ES256',
    private_key: 'PRIVATE',
    actor: 'system',
    actor_kind: 'system',
    ip: '10.1.2.3',
    user_agent: 'cron',
  });
  booted.kernel.events.emit('keys.unrelated', { kid: 'k-3' });
  await booted.kernel.events.drain();
  const { rows } = await booted.kernel.service('audit').list({}, { limit: 10, offset: 0 });
  t.equal(rows.length, 1, 'only the declared event');
  t.match(rows[0], {
    action: 'key.rotate',
    resourceType: 'signing_key',
    resourceId: 'k-2',
    actorId: 'system',
    actorType: 'system',
    ipAddress: '10.1.2.3',
    userAgent: 'cron',
  });
  t.same(JSON.parse(rows[0].metadata ?? '{}'), { algorithm: 'ES256' }, 'a field named like a secret is dropped');
});
