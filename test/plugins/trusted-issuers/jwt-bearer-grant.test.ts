/**
 * The JWT bearer grant (RFC 7523 §2.1): an assertion from a trusted issuer buys an access token
 * of its client's service account; a broken, replayed or foreign assertion is `invalid_grant`.
 */
import { SignJWT, type CryptoKey } from 'jose';
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';
import { startJwksServer } from './jwks-server.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ISSUER = 'https://workloads.example';
const WORKLOAD = 'spiffe://example.org/ns/billing/sa/worker';

const jwks = await startJwksServer();
t.teardown(() => jwks.close());
const server = await startTestServer({ flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] } });
t.teardown(() => server.close());
const tokenEndpoint = `${server.url}/oauth/token`;

async function admin(op: string, input: Record<string, unknown>) {
  const r = await fetch(`${server.url}${server.kernel.operations.get(op)!.restPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET },
    body: JSON.stringify(input),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

const created = await admin('_create_client', { name: 'billing', allowed_scopes: ['openid', 'billing:read'] });
const client = created.body.client as { id: string; client_id: string };
const secret = created.body.client_secret as string;
const key = await jwks.addKey('/workloads', 'RS256');
const issuer = await admin('_add_trusted_issuer', {
  service_account_id: client.id,
  name: 'Workloads',
  issuer_url: ISSUER,
  key_source_type: 'static_jwks_url',
  jwks_url: key.jwksUrl,
  expected_aud: tokenEndpoint,
  allowed_subjects: [WORKLOAD],
  issuer_type: 'spiffe',
});
t.equal(issuer.status, 200, 'issuer added');

function assertion(privateKey: CryptoKey, claims: { sub?: string; aud?: string; jti?: string } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: '/workloads-key' })
    .setIssuer(ISSUER)
    .setSubject(claims.sub ?? WORKLOAD)
    .setAudience(claims.aud ?? tokenEndpoint)
    .setIssuedAt(now)
    .setExpirationTime(now + 120)
    .setJti(claims.jti ?? crypto.randomUUID())
    .sign(privateKey);
}

async function grant(params: Record<string, string>) {
  const r = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: GRANT, ...params }),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

t.test('discovery lists the grant', async (t) => {
  const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as {
    grant_types_supported: string[];
  };
  t.ok(doc.grant_types_supported.includes(GRANT));
});

t.test('a trusted workload gets a token of the service account', async (t) => {
  const r = await grant({ assertion: await assertion(key.privateKey), scope: 'billing:read' });
  t.equal(r.status, 200);
  t.equal(r.body.scope, 'billing:read');
  const introspected = await fetch(`${server.url}/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      token: r.body.access_token as string,
      client_id: client.client_id,
      client_secret: secret,
    }),
  });
  t.match(await introspected.json(), {
    active: true,
    sub: `service_account:${client.client_id}`,
    scope: 'billing:read',
  });
});

t.test('refused assertions are invalid_grant', async (t) => {
  const replayed = await assertion(key.privateKey);
  t.equal((await grant({ assertion: replayed })).status, 200);
  const cases: Record<string, () => Promise<string>> = {
    replayed: async () => replayed,
    'a subject the issuer does not list': () =>
      assertion(key.privateKey, { sub: 'spiffe://example.org/ns/other/sa/x' }),
    'another audience': () => assertion(key.privateKey, { aud: 'https://elsewhere.example/oauth/token' }),
    'not a JWT': async () => 'abc.def',
  };
  for (const [name, make] of Object.entries(cases)) {
    const r = await grant({ assertion: await make() });
    t.equal(r.status, 400, name);
    t.equal(r.body.error, 'invalid_grant', name);
  }
  const scope = await grant({ assertion: await assertion(key.privateKey), scope: 'admin' });
  t.equal(scope.body.error, 'invalid_scope');
  const missing = await grant({});
  t.equal(missing.body.error, 'invalid_request');
});

t.test('an inactive client gets nothing', async (t) => {
  t.equal((await admin('_update_client', { id: client.id, is_active: false })).status, 200);
  const r = await grant({ assertion: await assertion(key.privateKey) });
  t.equal(r.body.error, 'invalid_grant');
  t.equal((await admin('_update_client', { id: client.id, is_active: true })).status, 200);
  t.equal((await grant({ assertion: await assertion(key.privateKey) })).status, 200, 'active again');
});
