/**
 * `_import_saml_sp_metadata` over GraphQL is a mutation taking `{metadata_xml!}`: a super-admin
 * reads metadata without naming an organization, an organization admin names one it administers
 * (and no other), and the field is not on Query. REST and gRPC take the same input.
 */
import t from 'tap';
import { grpcClient } from '../../helpers/grpc-client.js';
import { orgAdminOf } from '../../helpers/org-admin.js';
import { postJson } from '../../helpers/post-json.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

const METADATA =
  '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.import.example/saml">' +
  '<SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">' +
  '<AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://sp.import.example/acs" index="0"/>' +
  '</SPSSODescriptor></EntityDescriptor>';

const MUTATION = `mutation Import($params: ImportSAMLSPMetadataRequest!) {
  _import_saml_sp_metadata(params: $params) { entity_id acs_url }
}`;

interface GraphqlAnswer {
  data?: { _import_saml_sp_metadata?: { entity_id: string; acs_url: string } } | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

t.test('_import_saml_sp_metadata is a GraphQL mutation', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const adminHeaders = {
    'content-type': 'application/json',
    origin: server.url,
    'x-service-admin-secret': TEST_ADMIN_SECRET,
  };
  const graphql = async (query: string, variables: unknown, headers: Record<string, string>) =>
    (await (
      await fetch(`${server.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) })
    ).json()) as GraphqlAnswer;
  const admin = async (op: string, body: unknown) => {
    const res = await fetch(`${server.url}/v1/admin/${op}`, {
      method: 'POST',
      headers: adminHeaders,
      body: JSON.stringify(body),
    });
    t.equal(res.status, 200, `${op} succeeds`);
    return (await res.json()) as Record<string, unknown>;
  };
  const parsed = { entity_id: 'https://sp.import.example/saml', acs_url: 'https://sp.import.example/acs' };

  const bySuperAdmin = await graphql(MUTATION, { params: { metadata_xml: METADATA } }, adminHeaders);
  t.same(bySuperAdmin.errors, undefined, 'a super-admin needs no org_id');
  t.same(bySuperAdmin.data?._import_saml_sp_metadata, parsed);

  const asQuery = await graphql(
    'query Q($p: ImportSAMLSPMetadataRequest!) { _import_saml_sp_metadata(params: $p) { entity_id } }',
    { p: { metadata_xml: METADATA } },
    adminHeaders,
  );
  t.match(asQuery.errors?.[0]?.message, /Cannot query field "_import_saml_sp_metadata" on type "Query"/);

  const acme = (await admin('create_organization', { name: 'acme' })).id as string;
  const other = (await admin('create_organization', { name: 'other' })).id as string;
  const boss = await orgAdminOf(server.url, acme, admin, 'boss@acme.example');
  const bossHeaders = { 'content-type': 'application/json', origin: server.url, authorization: `Bearer ${boss.token}` };

  const own = await graphql(MUTATION, { params: { org_id: acme, metadata_xml: METADATA } }, bossHeaders);
  t.same(own.errors, undefined, 'an organization admin reads metadata for its organization');
  t.same(own.data?._import_saml_sp_metadata, parsed);

  const unnamed = await graphql(MUTATION, { params: { metadata_xml: METADATA } }, bossHeaders);
  t.equal(unnamed.errors?.[0]?.extensions?.code, 'INVALID_ARGUMENT', 'an organization admin names its organization');
  t.equal(unnamed.errors?.[0]?.message, 'org_id is required for an organization admin');

  const foreign = await graphql(MUTATION, { params: { org_id: other, metadata_xml: METADATA } }, bossHeaders);
  t.equal(foreign.errors?.[0]?.extensions?.code, 'NOT_FOUND', 'another organization is not found');

  const rest = await postJson(server.url, '/v1/admin/import_saml_sp_metadata', { metadata_xml: METADATA });
  t.equal(rest.status, 401, 'REST without credentials is refused');
  const restAdmin = await fetch(`${server.url}/v1/admin/import_saml_sp_metadata`, {
    method: 'POST',
    headers: adminHeaders,
    body: JSON.stringify({ metadata_xml: METADATA }),
  });
  t.equal(restAdmin.status, 200, 'REST takes the same flat body');
  t.same(await restAdmin.json(), parsed);

  const grpc = grpcClient(server.grpcAddress, [...server.kernel.operations.values()]);
  t.teardown(() => grpc.close());
  const viaGrpc = await grpc.call(
    '_import_saml_sp_metadata',
    { metadata_xml: METADATA },
    { 'x-service-admin-secret': TEST_ADMIN_SECRET },
  );
  t.match(viaGrpc.response, parsed, 'and gRPC without org_id');
});
