/**
 * Organization OIDC single sign-on against a real upstream issuer (node-oidc-provider on
 * 127.0.0.1): an org admin connects the organization, discovery points a verified domain at the
 * broker, and a login through /oauth/oidc/{org_slug}/login creates a just-in-time user joined to
 * the organization and comes back with tokens; the secret never leaves; another organization's
 * admin cannot see or change the connection; a callback without this browser's state creates
 * nothing; deleting the organization deletes its connection.
 */
import t from 'tap';
import { Browser, delivered, landing } from '../../providers/helpers/browser.js';
import { APP_CALLBACK } from '../../providers/helpers/latchkey.js';
import { expectInactiveThenDeleted, startAcmeIssuer, startOrgSsoScene } from '../../helpers/org-sso.js';
import { orgAdminOf } from '../../helpers/org-admin.js';
import { freePort } from '../../helpers/ports.js';

const port = await freePort();
const base = `http://localhost:${port}`;
const idp = await startAcmeIssuer(base);
t.teardown(() => idp.close());
const {
  latchkey,
  admin,
  acme,
  globex: other,
} = await startOrgSsoScene(base, port, {
  'outbound-allow-cidrs': '127.0.0.1/32',
  'encryption-key': 'org-sso-test-encryption-key-0123456789',
});
t.teardown(() => latchkey.close());

const connection = (await admin('create_org_oidc_connection', {
  org_id: acme,
  name: 'Acme IdP',
  issuer_url: idp.issuer,
  client_id: 'acme-latchkey',
  client_secret: 'acme-upstream-secret-0123',
})) as Record<string, unknown>;

const loginUrl = (params: Record<string, string> = {}) =>
  `${base}/oauth/oidc/acme/login?${new URLSearchParams({ redirect_uri: APP_CALLBACK, state: 'app-state', ...params })}`;

t.test('the connection is stored without its secret and answered by id or organization', async (t) => {
  t.match(connection, {
    org_id: acme,
    name: 'Acme IdP',
    issuer_url: idp.issuer,
    sso_client_id: 'acme-latchkey',
    scopes: ['openid', 'email', 'profile'],
    redirect_uri: `${base}/oauth/oidc/acme/callback`,
    is_active: true,
  });
  t.notOk(JSON.stringify(connection).includes('acme-upstream-secret'), 'the secret is never answered');
  t.same(await admin('org_oidc_connection', { org_id: acme }), connection);
  t.same(await admin('org_oidc_connection', { id: connection.id }), connection);
  await t.rejects(
    admin('create_org_oidc_connection', {
      org_id: acme,
      name: 'Second',
      issuer_url: idp.issuer,
      client_id: 'x',
      client_secret: 'y',
    }),
    /409/,
    'one connection per organization',
  );
  await t.rejects(
    admin('create_org_oidc_connection', {
      org_id: other,
      name: 'Plain http',
      issuer_url: 'http://idp.example.com',
      client_id: 'x',
      client_secret: 'y',
    }),
    /400.*https/,
    'an http issuer that is not loopback is refused',
  );
});

t.test('discovery points a verified domain at the broker', async (t) => {
  const res = await fetch(`${base}/api/v1/org-discovery?email=${encodeURIComponent('kim@acme.example')}`);
  t.same(await res.json(), { connection: { type: 'oidc', login_url: '/oauth/oidc/acme/login' } });
});

t.test('a login through the broker: a just-in-time user, joined to the organization, with tokens', async (t) => {
  idp.nextAccount = {
    sub: 'kim-upstream-1',
    claims: { email: 'kim@acme.example', email_verified: true, given_name: 'Kim', family_name: 'Lee' },
  };
  const hops = await new Browser().follow(loginUrl({ state: 'xyz' }), APP_CALLBACK);
  const authorize = new URL(hops[0]!.location!);
  t.ok(authorize.href.startsWith(idp.issuer), 'the login goes to the upstream issuer');
  t.equal(authorize.searchParams.get('code_challenge_method'), 'S256', 'with PKCE');
  t.ok(authorize.searchParams.get('nonce'), 'and a nonce');
  const params = delivered(landing(hops));
  t.equal(params.get('state'), 'xyz');
  const token = params.get('access_token');
  t.ok(token, 'tokens come back to the application');
  const profile = (await (
    await fetch(`${base}/v1/profile`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as {
    id: string;
    email: string;
    given_name: string;
  };
  t.match(profile, { email: 'kim@acme.example', given_name: 'Kim' });
  const orgs = (await admin('user_organizations', { user_id: profile.id })) as { organizations?: unknown[] };
  t.match(JSON.stringify(orgs), /acme/, 'the user is a member of the organization');

  const again = delivered(landing(await new Browser().follow(loginUrl(), APP_CALLBACK)));
  const second = (await (
    await fetch(`${base}/v1/profile`, { headers: { authorization: `Bearer ${again.get('access_token')}` } })
  ).json()) as { id: string };
  t.equal(second.id, profile.id, 'the same upstream subject signs in to the same account');
});

t.test('a callback that this browser did not start creates nothing', async (t) => {
  idp.nextAccount = { sub: 'mallory-1', claims: { email: 'mallory@acme.example', email_verified: true } };
  const attacker = new Browser();
  const hops = await attacker.follow(loginUrl(), `${base}/oauth/oidc/acme/callback`);
  const callback = hops.at(-1)!.location!;
  const victim = await new Browser().request(callback);
  t.equal(victim.status, 400, 'another browser presenting the callback is refused');
  t.match(await victim.text(), /invalid_state/);
  const users = (await admin('users', { query: 'mallory@acme.example' })) as { users: unknown[] };
  t.equal(users.users.length, 0, 'nothing was created for the victim');
  // The browser that started the login finishes it once; the same callback a second time is refused.
  const own = await attacker.follow(callback, APP_CALLBACK);
  t.ok(delivered(landing(own)).get('access_token'), 'the starting browser completes its own login');
  const replay = await attacker.follow(callback, APP_CALLBACK);
  t.equal(replay.at(-1)?.status, 400, 'a replayed callback is refused');
});

t.test("another organization's admin sees the same not-found for this connection as for none", async (t) => {
  const asBoss = (await orgAdminOf(base, other, admin)).call;
  const foreign = await asBoss('org_oidc_connection', { id: connection.id });
  const missing = await asBoss('org_oidc_connection', { id: '01a24f00-0000-7000-8000-000000000000' });
  t.same(foreign, missing, 'the same answer');
  t.equal(foreign.status, 404);
  const change = await asBoss('update_org_oidc_connection', { id: connection.id, is_active: false });
  t.equal(change.status, 404, 'and it cannot be changed');
  const own = await asBoss('org_oidc_connection', { org_id: other });
  t.equal(own.status, 404, 'its own organization has none');
});

t.test('an inactive connection is not offered and refuses logins; deleting the organization deletes it', (t) =>
  expectInactiveThenDeleted(t, { latchkey, admin, acme }, 'oidc', connection.id as string, loginUrl()),
);
