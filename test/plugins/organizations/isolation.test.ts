/**
 * The isolation matrix (org-scoped operations accept that
 * organization's `service:org_admin` member): every org-scoped operation, called by the admin of
 * organization A on organization B's records and on records that do not exist, over REST and
 * GraphQL, is refused with the very same answer, so a refusal never tells whether B or its
 * records exist; B is unchanged afterwards. A's admin on A's own records succeeds (the control
 * that shows the refusals are about the target, not the caller).
 */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { admin, graphql, orgWithAdmin, rest, signUp, type Caller } from './client.js';

const MISSING_ID = '0190f1a2-7b3c-7d4e-8f5a-6b7c8d9e0f1a';

interface Case {
  name: string;
  kind: 'query' | 'mutation';
  input: string;
  /** The input aimed at B's real records, and at records that do not exist. */
  existing: Record<string, unknown>;
  missing: Record<string, unknown>;
}

t.test('an org admin reaches only its own organization', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const a = await orgWithAdmin(server, 'alpha');
  const b = await orgWithAdmin(server, 'bravo');
  const bMember = await signUp(server, 'member@bravo.example');
  await admin(server, 'add_org_member', { org_id: b.orgId, user_id: bMember.userId, roles: ['member'] });
  await admin(server, 'add_verified_org_domain', { org_id: b.orgId, domain: 'bravo.example' });
  await admin(server, 'create_scim_endpoint', { org_id: b.orgId });
  const outsider = await signUp(server, 'someone@elsewhere.example');

  const cases: Case[] = [
    {
      name: '_update_organization',
      kind: 'mutation',
      input: 'UpdateOrganizationRequest',
      existing: { id: b.orgId, display_name: 'taken over' },
      missing: { id: MISSING_ID, display_name: 'taken over' },
    },
    {
      name: '_organization',
      kind: 'query',
      input: 'OrganizationRequest',
      existing: { id: b.orgId },
      missing: { id: MISSING_ID },
    },
    {
      name: '_add_org_member',
      kind: 'mutation',
      input: 'AddOrgMemberRequest',
      existing: { org_id: b.orgId, user_id: outsider.userId, roles: ['service:org_admin'] },
      missing: { org_id: MISSING_ID, user_id: outsider.userId, roles: ['service:org_admin'] },
    },
    {
      name: '_remove_org_member',
      kind: 'mutation',
      input: 'RemoveOrgMemberRequest',
      existing: { org_id: b.orgId, user_id: bMember.userId },
      missing: { org_id: MISSING_ID, user_id: bMember.userId },
    },
    {
      name: '_org_members',
      kind: 'query',
      input: 'ListOrgMembersRequest',
      existing: { org_id: b.orgId },
      missing: { org_id: MISSING_ID },
    },
    {
      name: '_user_organizations',
      kind: 'query',
      input: 'UserOrganizationsRequest',
      existing: { user_id: bMember.userId },
      missing: { user_id: MISSING_ID },
    },
    {
      name: '_request_org_domain',
      kind: 'mutation',
      input: 'OrgDomainRequest',
      existing: { org_id: b.orgId, domain: 'new.bravo.example' },
      missing: { org_id: MISSING_ID, domain: 'new.bravo.example' },
    },
    {
      name: '_verify_org_domain',
      kind: 'mutation',
      input: 'OrgDomainRequest',
      existing: { org_id: b.orgId, domain: 'new.bravo.example' },
      missing: { org_id: MISSING_ID, domain: 'new.bravo.example' },
    },
    {
      name: '_add_verified_org_domain',
      kind: 'mutation',
      input: 'OrgDomainRequest',
      existing: { org_id: b.orgId, domain: 'other.bravo.example' },
      missing: { org_id: MISSING_ID, domain: 'other.bravo.example' },
    },
    {
      name: '_org_domains',
      kind: 'query',
      input: 'ListOrgDomainsRequest',
      existing: { org_id: b.orgId },
      missing: { org_id: MISSING_ID },
    },
    {
      name: '_delete_org_domain',
      kind: 'mutation',
      input: 'DeleteOrgDomainRequest',
      existing: { domain: 'bravo.example' },
      missing: { domain: 'missing-domain.example' },
    },
    ...extraCases(b.orgId),
  ];

  const asA: Caller = { bearer: a.admin.token };

  for (const c of cases) {
    t.test(`${c.name} over REST`, async (t) => {
      const path = `admin/${c.name.slice(1)}`;
      const existing = await rest(server, path, c.existing, asA);
      const missing = await rest(server, path, c.missing, asA);
      t.ok(existing.status >= 400 && existing.status < 500, `refused with a 4xx (${existing.status})`);
      t.equal(existing.status, missing.status, 'the same status for existing and missing targets');
      t.strictSame(existing.body, missing.body, 'the same body for existing and missing targets');
    });
    t.test(`${c.name} over GraphQL`, async (t) => {
      const query = `${c.kind} Probe($params: ${c.input}!) { ${c.name}(params: $params) { __typename } }`;
      const existing = await graphql(server, query, { params: c.existing }, asA);
      const missing = await graphql(server, query, { params: c.missing }, asA);
      t.ok(existing.errors?.length, 'refused');
      t.not(existing.errors?.[0]?.extensions?.code, 'INTERNAL');
      t.strictSame(existing.errors, missing.errors, 'the same error for existing and missing targets');
      t.equal(existing.data?.[c.name] ?? null, null);
    });
  }

  t.test("B is untouched and A's admin works on A", async (t) => {
    const org = await admin(server, 'organization', { id: b.orgId });
    t.equal(org.display_name, 'bravo Inc.');
    const members = (await admin(server, 'org_members', { org_id: b.orgId })) as { org_members: { user_id: string }[] };
    t.strictSame(members.org_members.map((m) => m.user_id).sort(), [b.admin.userId, bMember.userId].sort());
    const domains = (await admin(server, 'org_domains', { org_id: b.orgId })) as { org_domains: { domain: string }[] };
    t.strictSame(
      domains.org_domains.map((d) => d.domain),
      ['bravo.example'],
    );
    t.match(await admin(server, 'scim_endpoint', { org_id: b.orgId }), { org_id: b.orgId, enabled: true });
    const own = await rest(server, 'admin/organization', { id: a.orgId }, asA);
    t.equal(own.status, 200);
    t.equal(own.body.name, 'alpha');
    const ownMembers = await rest(server, 'admin/org_members', { org_id: a.orgId }, asA);
    t.equal(ownMembers.status, 200);
    const orgsOfA = await rest(server, 'admin/user_organizations', { user_id: a.admin.userId }, asA);
    t.strictSame(
      (orgsOfA.body.user_organizations as { organization: { id: string } }[]).map((o) => o.organization.id),
      [a.orgId],
    );
  });

  t.test('super-admin-only operations refuse org admins alike', async (t) => {
    for (const [name, body] of [
      ['create_organization', { name: 'charlie' }],
      ['organizations', {}],
      ['delete_organization', { id: b.orgId }],
    ] as const) {
      const answer = await rest(server, `admin/${name}`, body, asA);
      t.equal(answer.status, 401, name);
    }
    const assert = await rest(
      server,
      'admin/add_verified_org_domain',
      { org_id: a.orgId, domain: 'alpha.example' },
      asA,
    );
    t.equal(assert.status, 403, 'trusted assertion is the super-admin alone, even on its own organization');
    t.equal(assert.body.code, 'permission_denied');
  });

  t.test('a signed-in user without the org admin role is no org admin', async (t) => {
    const answer = await rest(server, 'admin/organization', { id: b.orgId }, { bearer: bMember.token });
    t.equal(answer.status, 401);
  });
});

/** Org-scoped operations of plugins built on organizations that join the matrix (SCIM endpoints). */
function extraCases(orgId: string): Case[] {
  return ['_create_scim_endpoint', '_rotate_scim_token', '_delete_scim_endpoint', '_scim_endpoint'].map((name) => ({
    name,
    kind: name === '_scim_endpoint' ? 'query' : 'mutation',
    input: 'ScimEndpointRequest',
    existing: { org_id: orgId },
    missing: { org_id: MISSING_ID },
  }));
}
