/**
 * Social logins end in a raw route (`/oauth_callback/{provider}`) and are audited like any other
 * sign-in (docs/audit.md): a new user's first login and a returning user's login are `user.login`
 * records of that user with the provider as method; the provider's error answer, an answer that
 * fails its checks and a revoked user are refused logins with the client address, the last one
 * naming the user refused. The generic OpenID Connect provider runs against a local issuer.
 */
import t from 'tap';
import type { AuditLogRow } from '../../../plugins/audit/entities.js';
import { Browser, delivered, landing } from '../../providers/helpers/browser.js';
import { startJoseIssuer } from '../../providers/helpers/jose-issuer.js';
import { APP_CALLBACK, startLatchkey } from '../../providers/helpers/latchkey.js';

const SECRET = 'audit-generic-secret-0123456789';
const idp = await startJoseIssuer({ clientId: 'audit-client', client: { secret: SECRET } });
t.teardown(() => idp.close());
const latchkey = await startLatchkey({
  'oidc-client-id': 'audit-client',
  'oidc-client-secret': SECRET,
  'oidc-issuer-url': idp.issuer,
});
t.teardown(() => latchkey.close());
const kernel = latchkey.server.kernel;

async function rowsOf(action: string): Promise<AuditLogRow[]> {
  await kernel.events.drain();
  return (await kernel.service('audit').list({ action }, { limit: 100, offset: 0 })).rows;
}
const meta = (row: AuditLogRow) => JSON.parse(row.metadata ?? '{}') as Record<string, unknown>;
const login = async () => delivered(landing(await new Browser().follow(latchkey.loginUrl('oidc'), APP_CALLBACK)));

t.test("a new user's first social login and a returning user's are recorded", async (t) => {
  idp.nextAccount = { sub: 'audit-sub-1', claims: { email: 'social@example.com', email_verified: true } };
  t.ok((await login()).get('access_token'), 'signed in');
  const user = (await latchkey.admin('user', { email: 'social@example.com' })) as { id: string };
  const [first] = await rowsOf('user.login');
  t.match(first, {
    actorType: 'user',
    actorId: user.id,
    actorEmail: 'social@example.com',
    resourceType: 'user',
    resourceId: user.id,
    ipAddress: '127.0.0.1',
  });
  t.match(meta(first), { method: 'oidc', amr: ['fed'] });
  t.notMatch(first.metadata ?? '', /failure/);

  idp.nextAccount = { sub: 'audit-sub-1', claims: { email: 'social@example.com', email_verified: true } };
  t.ok((await login()).get('access_token'));
  const rows = await rowsOf('user.login');
  t.equal(rows.length, 2, 'one record per login');
  t.equal(rows[0].actorId, user.id);
});

t.test("the provider's error answer, an unverifiable answer and a revoked user are refused logins", async (t) => {
  idp.denyNext = 'access_denied';
  t.equal((await login()).get('error'), 'access_denied');
  const [denied] = await rowsOf('user.login');
  t.match(denied, { actorType: 'anonymous', resourceType: 'user', ipAddress: '127.0.0.1' });
  t.match(meta(denied), { outcome: 'failure', error: 'access_denied', method: 'oidc', reason: 'access_denied' });

  idp.nextAccount = { sub: 'audit-sub-2', claims: { email: 'tampered@example.com', email_verified: true } };
  idp.tamperNext = 'bad-signature';
  t.equal((await login()).get('error'), 'server_error');
  const [unverified] = await rowsOf('user.login');
  t.match(meta(unverified), { outcome: 'failure', method: 'oidc' });

  const user = (await latchkey.admin('user', { email: 'social@example.com' })) as { id: string };
  await latchkey.admin('revoke_access', { user_id: user.id });
  idp.nextAccount = { sub: 'audit-sub-1', claims: { email: 'social@example.com', email_verified: true } };
  t.equal((await login()).get('error'), 'access_denied');
  const [revoked] = await rowsOf('user.login');
  t.match(revoked, { actorType: 'user', actorId: user.id, resourceType: 'user', resourceId: user.id });
  t.match(meta(revoked), { outcome: 'failure', error: 'access_denied', method: 'oidc', reason: 'access_denied' });
  t.equal((await rowsOf('user.login')).length, 5, 'one record per attempt, none twice');
});
