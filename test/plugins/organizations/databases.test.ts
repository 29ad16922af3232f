/**
 * Organizations, domains and SCIM records on PostgreSQL and MariaDB (SQLite runs in the other
 * tests): unique names and one owner per domain enforced by the database under concurrency, the
 * deletion cascade in one transaction (rolled back whole when a listener fails), and SCIM users
 * with their JSON columns read back as written.
 */
import t from 'tap';
import { ServiceError } from '../../../core/errors.js';
import { definePlugin } from '../../../core/plugin.js';
import { accountPlugins, basePlugins } from '../../../plugins/default.js';
import { createOrgDomainsPlugin } from '../../../plugins/org-domains/index.js';
import { OrgDomainEntity } from '../../../plugins/org-domains/entities.js';
import { OrgMemberEntity, OrganizationEntity } from '../../../plugins/organizations/entities.js';
import { organizationsPlugin } from '../../../plugins/organizations/index.js';
import { ScimUserEntity } from '../../../plugins/scim/entities.js';
import { scimPlugin } from '../../../plugins/scim/index.js';
import { databaseTargets } from '../../helpers/databases.js';
import { bootTestKernel, testContext } from '../../helpers/kernel.js';

const ADMIN = 'orgs-db-admin-secret';
const targets = (await databaseTargets({ only: ['postgres', 'mariadb'] })).filter((d) => d.name !== 'sqlite');
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

let failCascade = false;
const cascadeProbe = definePlugin({
  name: 'cascade-probe',
  description: 'Fails the organization.deleting hook on demand.',
  dependsOn: ['organizations'],
  setup(ctx) {
    ctx.hooks.on('organization.deleting', () => {
      if (failCascade) throw new ServiceError('failed_precondition', 'probe refuses');
    });
  },
});

for (const target of targets) {
  t.test(`${target.name}: organizations, domains and SCIM records`, async (t) => {
    const { kernel, close } = await bootTestKernel({
      database: target,
      plugins: [
        ...basePlugins,
        ...accountPlugins,
        organizationsPlugin,
        createOrgDomainsPlugin(),
        scimPlugin,
        cascadeProbe,
      ],
      flags: {
        url: 'http://localhost:9999',
        'admin-secret': ADMIN,
        'client-id': 'app',
        'client-secret': 'app-secret',
        'jwt-type': 'HS256',
        'jwt-secret': 'orgs-db-test-secret-0123456789abcdef',
      },
    });
    t.teardown(close);
    const call = <T = Record<string, unknown>>(name: string, input?: unknown) =>
      kernel.invoke(name, testContext(kernel, { headers: { 'x-service-admin-secret': ADMIN } }), input) as Promise<T>;
    const em = () => kernel.storage.em();

    const names = await Promise.allSettled([
      call('_create_organization', { name: 'same' }),
      call('_create_organization', { name: 'same' }),
    ]);
    t.equal(names.filter((r) => r.status === 'fulfilled').length, 1, 'one of two concurrent creates wins');
    t.match(
      names.find((r) => r.status === 'rejected'),
      { reason: { code: 'already_exists' } },
    );
    const a = await call<{ id: string }>('_create_organization', { name: 'alpha' });
    const b = await call<{ id: string }>('_create_organization', { name: 'bravo' });

    const race = await Promise.allSettled([
      call('_add_verified_org_domain', { org_id: a.id, domain: 'race.example' }),
      call('_add_verified_org_domain', { org_id: b.id, domain: 'race.example' }),
    ]);
    t.equal(race.filter((r) => r.status === 'fulfilled').length, 1, 'one owner per domain');
    t.match(
      race.find((r) => r.status === 'rejected'),
      {
        reason: { message: 'domain_already_verified_by_another_org' },
      },
    );

    const { token } = await call<{ token: string }>('_create_scim_endpoint', { org_id: a.id });
    t.ok(await kernel.service('scim').endpoints.authenticate(token));
    const provisioned = await kernel.service('scim').provisioning.create(a.id, {
      userName: 'Pat@Alpha.example',
      externalId: 'x-1',
      givenName: 'Pat',
      familyName: null,
      emails: [{ value: 'pat@alpha.example', type: 'work', primary: true }],
      active: true,
    });
    const link = (await em().findOne(ScimUserEntity, { userId: provisioned.user.id })) as {
      emails: unknown;
      userNameKey: string;
    };
    t.strictSame(link.emails, [{ value: 'pat@alpha.example', type: 'work', primary: true }]);
    t.equal(link.userNameKey, 'pat@alpha.example');
    await t.rejects(
      kernel.service('scim').provisioning.create(a.id, {
        userName: 'PAT@alpha.example',
        externalId: null,
        givenName: null,
        familyName: null,
        emails: [{ value: 'other@alpha.example' }],
        active: true,
      }),
      { code: 'already_exists' },
    );
    t.equal(await em().count(OrgMemberEntity, { orgId: a.id }), 1, 'the provisioned user is a member');

    failCascade = true;
    await t.rejects(call('_delete_organization', { id: a.id }), { code: 'failed_precondition' });
    failCascade = false;
    t.equal(await em().count(OrganizationEntity, { id: a.id }), 1, 'rolled back: the organization');
    t.equal(await em().count(OrgMemberEntity, { orgId: a.id }), 1, 'its members');
    t.equal(await em().count(ScimUserEntity, { orgId: a.id }), 1, 'its SCIM records');

    const owner = (await em().findOne(OrgDomainEntity, { domain: 'race.example' })) as { orgId: string };
    await call('_delete_organization', { id: owner.orgId });
    await call('_delete_organization', { id: owner.orgId === a.id ? b.id : a.id });
    t.equal(await em().count(OrgDomainEntity, {}), 0);
    t.equal(await em().count(OrgMemberEntity, {}), 0);
    t.equal(await em().count(ScimUserEntity, {}), 0);
    t.equal(await kernel.service('scim').endpoints.authenticate(token), null, 'the endpoint went with it');
    t.ok(await kernel.service('users').findById(provisioned.user.id), 'the user stays');
  });
}
