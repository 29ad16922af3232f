/**
 * The five trusted-issuer operations over REST (the admin group "Trusted issuers"): bad input
 * is a 4xx that writes nothing, `subject_claim` defaults to `sub`, the list filters by client, and
 * deleting a client deletes its issuers.
 */
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());

async function admin(op: string, input: Record<string, unknown>) {
  const r = await fetch(`${server.url}${server.kernel.operations.get(op)!.restPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': TEST_ADMIN_SECRET },
    body: JSON.stringify(input),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

async function newClient(name: string): Promise<string> {
  const r = await admin('_create_client', { name, allowed_scopes: ['openid'] });
  return (r.body.client as { id: string }).id;
}

const count = async (serviceAccountId?: string): Promise<number> => {
  const r = await admin('_trusted_issuers', serviceAccountId ? { service_account_id: serviceAccountId } : {});
  return (r.body.pagination as { total: number }).total;
};

const clientA = await newClient('a');
const clientB = await newClient('b');
const valid = (overrides: Record<string, unknown> = {}) => ({
  service_account_id: clientA,
  name: 'Workload issuer',
  issuer_url: 'https://issuer.example',
  key_source_type: 'static_jwks_url',
  jwks_url: 'https://issuer.example/jwks',
  expected_aud: `${server.url}/oauth/token`,
  issuer_type: 'generic',
  ...overrides,
});

t.test('the operations need the admin secret', async (t) => {
  const r = await fetch(`${server.url}${server.kernel.operations.get('_trusted_issuers')!.restPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: '{}',
  });
  t.equal(r.status, 401);
});

t.test('bad input is refused and nothing is written', async (t) => {
  const cases: Record<string, [Record<string, unknown>, number]> = {
    'unknown key source type': [valid({ key_source_type: 'certificate' }), 400],
    'static JWKS without a URL': [valid({ jwks_url: undefined }), 400],
    'JWKS URL not https': [valid({ jwks_url: 'ftp://issuer.example/jwks' }), 400],
    'JWKS URL not a URL': [valid({ jwks_url: 'jwks' }), 400],
    'audience of another server': [valid({ expected_aud: 'https://elsewhere.example/oauth/token' }), 400],
    'unknown issuer type': [valid({ issuer_type: 'x509' }), 400],
    'bad subject claim name': [valid({ subject_claim: 'sub claim' }), 400],
    'discovery issuer not a URL': [valid({ key_source_type: 'oidc_discovery', issuer_url: 'not a url' }), 400],
    'missing name': [valid({ name: undefined }), 400],
    'unknown client': [valid({ service_account_id: 'no-such-client' }), 404],
  };
  for (const [name, [input, status]] of Object.entries(cases)) {
    const r = await admin('_add_trusted_issuer', input);
    t.equal(r.status, status, name);
  }
  const selfRegistered = await server.kernel
    .service('client-registry')
    .registerPublic({ name: 'public app', redirect_uris: ['http://127.0.0.1:9/cb'], scopes: [] });
  t.equal(
    (await admin('_add_trusted_issuer', valid({ service_account_id: selfRegistered.id }))).status,
    400,
    'public client',
  );
  t.equal(await count(), 0, 'no record was written');
});

t.test('add, read, update, list and delete', async (t) => {
  const added = await admin('_add_trusted_issuer', valid({ allowed_subjects: ['spiffe://example.org/ns/a'] }));
  t.equal(added.status, 200);
  t.match(added.body, {
    service_account_id: clientA,
    name: 'Workload issuer',
    issuer_url: 'https://issuer.example',
    key_source_type: 'static_jwks_url',
    jwks_url: 'https://issuer.example/jwks',
    subject_claim: 'sub',
    allowed_subjects: ['spiffe://example.org/ns/a'],
    issuer_type: 'generic',
    is_active: true,
  });
  const id = added.body.id as string;
  t.same((await admin('_trusted_issuer', { id })).body, added.body, 'read back as written');

  const refused = await admin('_update_trusted_issuer', { id, name: 'Renamed', jwks_url: 'not a url' });
  t.equal(refused.status, 400);
  t.equal((await admin('_trusted_issuer', { id })).body.name, 'Workload issuer', 'a refused update changes nothing');

  const updated = await admin('_update_trusted_issuer', {
    id,
    name: 'Renamed',
    jwks_url: 'https://issuer.example/keys',
    expected_aud: server.url,
    is_active: false,
    issuer_type: 'spiffe',
  });
  t.equal(updated.status, 200);
  t.match(updated.body, {
    name: 'Renamed',
    jwks_url: 'https://issuer.example/keys',
    expected_aud: server.url,
    is_active: false,
    issuer_type: 'spiffe',
  });
  t.equal((await admin('_update_trusted_issuer', { id: 'missing', name: 'x' })).status, 404);

  await admin('_add_trusted_issuer', valid({ service_account_id: clientB, name: 'B issuer' }));
  t.equal(await count(clientA), 1, 'filtered by client');
  t.equal(await count(clientB), 1);
  t.equal(await count(), 2);

  t.equal((await admin('_delete_trusted_issuer', { id })).status, 200);
  t.equal((await admin('_trusted_issuer', { id })).status, 404);
  t.equal((await admin('_delete_trusted_issuer', { id })).status, 404);
  t.equal(await count(clientA), 0);
});

t.test('deleting a client deletes its trusted issuers', async (t) => {
  t.equal(await count(clientB), 1);
  t.equal((await admin('_delete_client', { id: clientB })).status, 200);
  t.equal(await count(clientB), 0);
  t.equal(await count(), 0);
});
