/**
 * Home realm discovery, black-box (disabled.test.ts: the 404 when off); one
 * uniform 400 for malformed addresses; `connection: null` for a verified domain without SSO, for
 * a disabled organization and for no match alike; an active SAML connection wins over OIDC; no
 * organization id or name in any answer; its own per-IP bucket; Meta's flag. The SSO connections
 * come from a stand-in `org-sso` plugin offering the service discovery asks for.
 * The hosted login page's email-first step redirects to the connection with `redirect_uri` and
 * `state`, and otherwise shows the normal login.
 */
import t from 'tap';
import type { AnyPlugin } from '../../../core/plugin.js';
import { definePlugin } from '../../../core/plugin.js';
import { defaultPlugins } from '../../../plugins/default.js';
import { createOrgDiscoveryPlugin, type DiscoveredConnection } from '../../../plugins/org-discovery/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { admin } from '../organizations/client.js';

const LIMIT = 12;
const connections = new Map<string, DiscoveredConnection[]>();
const ssoStandIn = definePlugin({
  name: 'org-sso',
  description: 'Stand-in for the enterprise SSO plugin: active connections per organization.',
  setup: () => ({ activeConnections: async (orgId: string) => connections.get(orgId) ?? [] }),
});

/**
 * The default distribution with discovery's limit set and the SSO plugin replaced by the stand-in
 * (without org-saml, which registers its connections with the real one).
 */
const withDiscovery = (limit: number): AnyPlugin[] => [
  ...defaultPlugins
    .filter((p) => p.name !== 'org-sso' && p.name !== 'org-saml')
    .map((p) => (p.name === 'org-discovery' ? createOrgDiscoveryPlugin({ limitPerMinute: limit }) : p)),
  ssoStandIn,
];

let ipCounter = 1;
/** A client address of its own (trusted proxy header), so each case has a fresh bucket. */
const freshIp = () => `198.51.100.${ipCounter++}`;

async function discover(server: TestServer, email: string | null, ip: string, raw?: string) {
  const query = raw ?? (email === null ? '' : `?email=${encodeURIComponent(email)}`);
  const res = await fetch(`${server.url}/api/v1/org-discovery${query}`, { headers: { 'x-forwarded-for': ip } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

t.test('discovery on', async (t) => {
  const server = await startTestServer({
    plugins: withDiscovery(LIMIT),
    flags: { 'enable-org-discovery': true, 'enable-login-page': true, 'trusted-proxies': ['127.0.0.1/32'] },
  });
  t.teardown(() => server.close());
  const acme = await admin(server, 'create_organization', { name: 'acme', display_name: 'Acme' });
  const oidcOnly = await admin(server, 'create_organization', { name: 'oidc-only' });
  const bare = await admin(server, 'create_organization', { name: 'bare' });
  await admin(server, 'add_verified_org_domain', { org_id: acme.id, domain: 'acme.example' });
  await admin(server, 'add_verified_org_domain', { org_id: acme.id, domain: 'bücher.example' });
  await admin(server, 'add_verified_org_domain', { org_id: oidcOnly.id, domain: 'oidc.example' });
  await admin(server, 'add_verified_org_domain', { org_id: bare.id, domain: 'bare.example' });
  connections.set(acme.id as string, [
    { type: 'oidc', login_url: '/oauth/oidc/acme/login' },
    { type: 'saml', login_url: '/oauth/saml/acme/login' },
  ]);
  connections.set(oidcOnly.id as string, [{ type: 'oidc', login_url: '/oauth/oidc/oidc-only/login' }]);

  t.test('Meta says so', async (t) => {
    const meta = (await (await fetch(`${server.url}/v1/meta`)).json()) as Record<string, unknown>;
    t.equal(meta.is_org_discovery_enabled, true);
  });

  t.test('SAML wins over OIDC; nothing names the organization', async (t) => {
    const ip = freshIp();
    const answer = await discover(server, 'jane@acme.example', ip);
    t.equal(answer.status, 200);
    t.strictSame(answer.body, { connection: { type: 'saml', login_url: '/oauth/saml/acme/login' } });
    const text = JSON.stringify(answer.body);
    t.notOk(text.includes(acme.id as string) || text.includes('Acme'), 'no organization id or name');
    t.strictSame((await discover(server, 'x@oidc.example', ip)).body, {
      connection: { type: 'oidc', login_url: '/oauth/oidc/oidc-only/login' },
    });
    t.strictSame((await discover(server, 'jane@ACME.Example', ip)).body.connection, answer.body.connection, 'case');
    t.strictSame(
      (await discover(server, 'jane@xn--bcher-kva.example', ip)).body.connection,
      answer.body.connection,
      'punycode form of a Unicode domain',
    );
    t.strictSame((await discover(server, 'jane@bücher.example', ip)).body.connection, answer.body.connection);
  });

  t.test('no SSO connection, a disabled organization and no match all answer null', async (t) => {
    const ip = freshIp();
    const bareAnswer = await discover(server, 'a@bare.example', ip);
    const unknown = await discover(server, 'a@unknown.example', ip);
    const subdomain = await discover(server, 'a@eu.acme.example', ip);
    for (const a of [bareAnswer, unknown, subdomain]) {
      t.equal(a.status, 200);
      t.strictSame(a.body, { connection: null });
    }
    await admin(server, 'update_organization', { id: acme.id, enabled: false });
    t.strictSame((await discover(server, 'a@acme.example', ip)).body, { connection: null });
    await admin(server, 'update_organization', { id: acme.id, enabled: true });
  });

  t.test('malformed input: one uniform 400', async (t) => {
    const ip = freshIp();
    const answers = [
      await discover(server, null, ip),
      await discover(server, '', ip),
      await discover(server, 'no-at-sign', ip),
      await discover(server, 'a@@acme.example', ip),
      await discover(server, '@acme.example', ip),
      await discover(server, 'a@', ip),
      await discover(server, 'a b@acme.example', ip),
      await discover(server, 'a@acme..example', ip),
      await discover(server, 'a@192.0.2.1', ip),
      await discover(server, `${'a'.repeat(65)}@acme.example`, ip),
      await discover(server, `a@${'b'.repeat(300)}.example`, ip),
      await discover(server, null, ip, '?email=a@acme.example&email=b@acme.example'),
    ];
    for (const a of answers) {
      t.equal(a.status, 400);
      t.strictSame(a.body, { code: 'invalid_argument', message: 'invalid email' });
    }
  });

  t.test('its own per-IP bucket', async (t) => {
    const ip = freshIp();
    for (let i = 0; i < LIMIT; i++) t.equal((await discover(server, 'a@acme.example', ip)).status, 200);
    const over = await discover(server, 'a@acme.example', ip);
    t.equal(over.status, 429);
    t.equal(over.body.code, 'resource_exhausted');
    t.ok(over.headers.get('retry-after'));
    t.equal((await discover(server, 'a@acme.example', freshIp())).status, 200, 'another client is not limited');
    const meta = await fetch(`${server.url}/v1/meta`, { headers: { 'x-forwarded-for': ip } });
    t.equal(meta.status, 200, 'the rest of the API is not limited by this bucket');
  });

  t.test('login page: email first, then the connection with redirect_uri and state', async (t) => {
    const returnTo =
      '/authorize?client_id=test-client&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&state=s-123&response_type=code';
    const first = await fetch(`${server.url}/app?return_to=${encodeURIComponent(returnTo)}`, {
      headers: { 'x-forwarded-for': freshIp() },
    });
    const html = await first.text();
    t.match(html, /action="\/app\/discover"/);
    t.notMatch(html, /type="password"/, 'the first step asks for the email only');
    t.match(html, /screen_hint=password/, 'a way to the password form is always there');

    const post = (email: string) =>
      fetch(`${server.url}/app/discover`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: server.url,
          'x-forwarded-for': freshIp(),
        },
        body: new URLSearchParams({ email, return_to: returnTo }).toString(),
      });
    const matched = await post('jane@acme.example');
    t.equal(matched.status, 303);
    const location = new URL(matched.headers.get('location')!, server.url);
    t.equal(location.pathname, '/oauth/saml/acme/login');
    t.equal(location.searchParams.get('redirect_uri'), 'https://app.example/cb');
    t.equal(location.searchParams.get('state'), 's-123');

    for (const email of ['someone@unknown.example', 'a@bare.example', 'not an email']) {
      const normal = await post(email);
      t.equal(normal.status, 200, email);
      const page = await normal.text();
      t.match(page, /action="\/app\/login"/, 'the normal login');
      t.match(page, /type="password"/);
    }
    const password = await fetch(`${server.url}/app?screen_hint=password&return_to=${encodeURIComponent(returnTo)}`);
    t.match(await password.text(), /action="\/app\/login"/);
  });
});
