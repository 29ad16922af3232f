/**
 * The SAML IdP operations over REST against the real server: an organization registers its
 * service providers (one per entity id, the ACS and certificate checked), its first signing key
 * is made with the first provider, rotation keeps the previous key published and retiring takes
 * it out, SP metadata is read without storing anything, and another organization's admin gets
 * the same not-found as for nothing at all.
 */
import { SAML } from '@node-saml/node-saml';
import t from 'tap';
import { databaseText } from '../../helpers/database-text.js';
import { orgAdminOf } from '../../helpers/org-admin.js';
import { grpcClient } from '../../helpers/grpc-client.js';
import { startLatchkey } from '../../providers/helpers/latchkey.js';
import { selfSignedKeyPair } from '../org-saml/saml-idp.js';

const latchkey = await startLatchkey({ 'encryption-key': 'saml-idp-operations-test-key-0123456789' });
t.teardown(() => latchkey.close());
const { admin, url: base } = latchkey;

/** An admin call's status and body, for the refusals. */
const call = async (op: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}/v1/admin/${op}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-admin-secret': 'test-admin-secret',
      origin: base,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const orgOf = async (name: string) => ((await admin('create_organization', { name })) as { id: string }).id;
const acme = await orgOf('acme');
const globex = await orgOf('globex');
const spKeys = selfSignedKeyPair('sp.example');

const provider = await admin('create_saml_service_provider', {
  org_id: acme,
  name: 'Wiki',
  entity_id: 'https://wiki.acme.example/saml',
  acs_url: 'https://wiki.acme.example/saml/acs',
  sp_cert_pem: spKeys.certificate,
});

t.test('a provider is stored with its defaults, read by id and listed per organization', async (t) => {
  t.match(provider, {
    org_id: acme,
    name: 'Wiki',
    entity_id: 'https://wiki.acme.example/saml',
    acs_url: 'https://wiki.acme.example/saml/acs',
    name_id_format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    mapped_attributes: [
      { name: 'email', field: 'email' },
      { name: 'given_name', field: 'given_name' },
      { name: 'family_name', field: 'family_name' },
    ],
    allow_idp_initiated: false,
    is_active: true,
  });
  t.match(provider.sp_cert_pem, /^-----BEGIN CERTIFICATE-----/);
  t.same(await admin('saml_service_provider', { id: provider.id }), provider);
  const second = await admin('create_saml_service_provider', {
    org_id: acme,
    name: 'CRM',
    entity_id: 'urn:crm',
    acs_url: 'http://127.0.0.1:9/acs',
    name_id_format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
    mapped_attributes: [{ name: 'mail', field: 'email' }],
    allow_idp_initiated: true,
  });
  const listed = (await admin('saml_service_providers', { org_id: acme })) as {
    pagination: { total: number };
    saml_service_providers: { id: string }[];
  };
  t.equal(listed.pagination.total, 2);
  t.same(
    listed.saml_service_providers.map((p) => p.id),
    [provider.id, second.id],
  );
  const none = (await admin('saml_service_providers', { org_id: globex })) as { pagination: { total: number } };
  t.equal(none.pagination.total, 0, 'another organization lists none of them');
  const updated = await admin('update_saml_service_provider', { id: second.id, name: 'CRM 2', is_active: false });
  t.match(updated, { name: 'CRM 2', is_active: false, allow_idp_initiated: true });
  t.same(await admin('delete_saml_service_provider', { id: second.id }), {
    message: 'saml service provider deleted successfully',
  });
  t.equal((await call('saml_service_provider', { id: second.id })).status, 404);
});

t.test('bad providers are refused and nothing is written', async (t) => {
  const create = (fields: Record<string, unknown>) =>
    call('create_saml_service_provider', {
      org_id: acme,
      name: 'Bad',
      entity_id: 'urn:bad',
      acs_url: 'https://bad.example/acs',
      ...fields,
    });
  t.match(await create({ entity_id: provider.entity_id }), { status: 409, body: { code: 'already_exists' } });
  t.match(await create({ acs_url: 'http://bad.example/acs' }), { status: 400, body: { message: /https/ } });
  t.match(await create({ sp_cert_pem: 'not a certificate' }), { status: 400, body: { message: /sp_cert_pem/ } });
  t.match(await create({ name_id_format: 'urn:whatever' }), { status: 400, body: { message: /name_id_format/ } });
  t.match(await create({ mapped_attributes: [{ name: 'x', field: 'password' }] }), {
    status: 400,
    body: { message: /mapped_attributes/ },
  });
  t.match(await create({ mapped_attributes: [{ name: 'a"b', field: 'email' }] }), { status: 400 });
  const listed = (await admin('saml_service_providers', { org_id: acme })) as { pagination: { total: number } };
  t.equal(listed.pagination.total, 1, 'none of them was stored');
});

t.test('signing keys: made with the first provider, rotated, retired', async (t) => {
  type Key = { id: string; org_id: string; cert_pem: string; algorithm: string; status: string };
  const keys = async () => ((await admin('saml_idp_keys', { org_id: acme })) as { saml_idp_keys: Key[] }).saml_idp_keys;
  const [first, ...rest] = await keys();
  t.same(rest, [], 'one key');
  t.match(first, { org_id: acme, algorithm: 'RS256', status: 'current', cert_pem: /^-----BEGIN CERTIFICATE-----/ });
  t.notOk(JSON.stringify(first).includes('PRIVATE KEY'), 'no private key in the answer');

  const rotated = (await admin('rotate_saml_idp_cert', { org_id: acme })) as Key;
  t.match(rotated, { status: 'current', org_id: acme });
  t.not(rotated.cert_pem, first!.cert_pem, 'a new certificate');
  t.same(
    (await keys()).map((k) => [k.id, k.status]),
    [
      [rotated.id, 'current'],
      [first!.id, 'active'],
    ],
    'the previous key is demoted, not removed',
  );
  t.match(await call('retire_saml_idp_key', { id: rotated.id }), {
    status: 400,
    body: { code: 'failed_precondition', message: 'the current signing key cannot be retired; rotate first' },
  });
  t.match(await admin('retire_saml_idp_key', { id: first!.id }), { id: first!.id, status: 'retired' });
  t.same(
    (await keys()).map((k) => k.status),
    ['current', 'retired'],
  );
  t.match(await call('retire_saml_idp_key', { id: 'no-such-key' }), { status: 404, body: { code: 'not_found' } });
});

t.test('the private signing keys are sealed at rest', async (t) => {
  const text = await databaseText(latchkey.server.kernel);
  t.ok(text.includes('latchkey_saml_idp_keys'), 'the keys table was read');
  t.match(text, /BEGIN CERTIFICATE/, 'certificates are stored as they are');
  t.notMatch(text, /PRIVATE KEY/, 'no private key in plain text');
});

t.test('the same operations over GraphQL and gRPC', async (t) => {
  const rest = await admin('saml_service_provider', { id: provider.id });
  const graphql = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-admin-secret': 'test-admin-secret', origin: base },
    body: JSON.stringify({
      query: `query($id: ID!) { _saml_service_provider(params: { id: $id }) { id entity_id acs_url mapped_attributes { name field } } }`,
      variables: { id: provider.id },
    }),
  });
  const data = ((await graphql.json()) as { data: { _saml_service_provider: Record<string, unknown> } }).data;
  t.same(data._saml_service_provider, {
    id: rest.id,
    entity_id: rest.entity_id,
    acs_url: rest.acs_url,
    mapped_attributes: rest.mapped_attributes,
  });
  const server = latchkey.server;
  const client = grpcClient(server.grpcAddress, [...server.kernel.operations.values()]);
  t.teardown(() => client.close());
  const metadata = { 'x-service-admin-secret': 'test-admin-secret' };
  const viaGrpc = await client.call('_saml_service_provider', { id: provider.id }, metadata);
  t.same(viaGrpc.response, rest);
  await t.rejects(client.call('_saml_service_provider', { id: 'no-such-provider' }, metadata), { code: 'not_found' });
});

t.test('SP metadata is read, not stored', async (t) => {
  const sp = new SAML({
    issuer: 'https://app.globex.example/saml/metadata',
    callbackUrl: 'https://app.globex.example/saml/acs',
    idpCert: spKeys.certificate,
    privateKey: spKeys.privateKey,
  });
  const xml = sp.generateServiceProviderMetadata(null, spKeys.certificate);
  const parsed = await admin('import_saml_sp_metadata', { org_id: globex, metadata_xml: xml });
  t.match(parsed, {
    entity_id: 'https://app.globex.example/saml/metadata',
    acs_url: 'https://app.globex.example/saml/acs',
  });
  const body = (pem: string) => pem.replace(/-----[^-]+-----|\s/g, '');
  t.equal(body(parsed.certificate as string), body(spKeys.certificate), 'the signing certificate');
  const listed = (await admin('saml_service_providers', { org_id: globex })) as { pagination: { total: number } };
  t.equal(listed.pagination.total, 0, 'no record created');

  const dtd = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${xml.replace(/^<\?xml[^>]*\?>/, '')}`;
  t.match(await call('import_saml_sp_metadata', { org_id: globex, metadata_xml: dtd }), {
    status: 400,
    body: { message: 'metadata_xml must not carry a DTD' },
  });
  t.match(await call('import_saml_sp_metadata', { org_id: globex, metadata_xml: '<a>not metadata</a>' }), {
    status: 400,
  });
});

t.test("another organization's admin gets the same not-found as for nothing", async (t) => {
  const boss = await orgAdminOf(base, globex, admin);
  const asBoss = (op: string, body: unknown) =>
    call(op, body, { 'x-service-admin-secret': '', authorization: `Bearer ${boss.token}` });
  const missing = '01a24f00-0000-7000-8000-000000000000';
  t.same(
    await asBoss('saml_service_provider', { id: provider.id }),
    await asBoss('saml_service_provider', { id: missing }),
  );
  t.equal((await asBoss('saml_service_provider', { id: provider.id })).status, 404);
  t.equal((await asBoss('update_saml_service_provider', { id: provider.id, is_active: false })).status, 404);
  t.equal((await asBoss('delete_saml_service_provider', { id: provider.id })).status, 404);
  t.equal((await asBoss('saml_service_providers', { org_id: acme })).status, 404);
  t.equal((await asBoss('saml_idp_keys', { org_id: acme })).status, 404);
  t.equal((await asBoss('rotate_saml_idp_cert', { org_id: acme })).status, 404);
  const acmeKey = ((await admin('saml_idp_keys', { org_id: acme })) as { saml_idp_keys: { id: string }[] })
    .saml_idp_keys[0]!;
  t.equal((await asBoss('retire_saml_idp_key', { id: acmeKey.id })).status, 404);
  t.equal((await asBoss('saml_service_providers', { org_id: globex })).status, 200, 'its own organization answers');
  t.equal((await asBoss('saml_service_provider', { id: provider.id })).status, 404);
});

t.test('deleting the organization deletes its providers and keys', async (t) => {
  await admin('delete_organization', { id: acme });
  t.equal((await call('saml_service_provider', { id: provider.id })).status, 404);
});
