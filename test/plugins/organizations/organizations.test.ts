/**
 * Organizations and members: create, read, list, update, delete;
 * members with org roles (adding again sets the roles); a user's organizations; bad input is a
 * clear 4xx with nothing written; deletion cascades in one transaction, so a listener that fails
 * leaves everything in place; deleting a user removes its memberships.
 */
import t from 'tap';
import { ServiceError } from '../../../core/errors.js';
import { definePlugin } from '../../../core/plugin.js';
import { accountPlugins, basePlugins } from '../../../plugins/default.js';
import { OrgMemberEntity, OrganizationEntity } from '../../../plugins/organizations/entities.js';
import { organizationsPlugin } from '../../../plugins/organizations/index.js';
import { bootTestKernel, testContext } from '../../helpers/kernel.js';

const ADMIN = 'orgs-admin-secret';

/** A plugin keeping one row per organization elsewhere would join the cascade like this; this one can be told to fail. */
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

t.test('organizations and members', async (t) => {
  const { kernel, close } = await bootTestKernel({
    plugins: [...basePlugins, ...accountPlugins, organizationsPlugin, cascadeProbe],
    flags: {
      url: 'http://localhost:9999',
      'admin-secret': ADMIN,
      'client-id': 'app',
      'client-secret': 'app-secret',
      'jwt-type': 'HS256',
      'jwt-secret': 'orgs-test-secret-0123456789abcdef',
    },
  });
  t.teardown(close);
  const call = <T = Record<string, unknown>>(name: string, input?: unknown) =>
    kernel.invoke(name, testContext(kernel, { headers: { 'x-service-admin-secret': ADMIN } }), input) as Promise<T>;
  const users = kernel.service('users');
  const ann = await users.create({
    email: 'ann@acme.example',
    signup_method: 'basic_auth',
    roles: ['user'],
    given_name: 'Ann',
  });
  const bob = await users.create({ email: 'bob@acme.example', signup_method: 'basic_auth', roles: ['user'] });

  const acme = await call<{ id: string; name: string; enabled: boolean; display_name: string }>(
    '_create_organization',
    {
      name: 'acme',
      display_name: 'Acme Corp',
    },
  );
  t.match(acme, { name: 'acme', display_name: 'Acme Corp', enabled: true });

  t.test('names are unique slugs', async (t) => {
    await t.rejects(call('_create_organization', { name: 'acme' }), { code: 'already_exists' });
    for (const name of ['Acme', 'acme corp', '-acme', 'acme-', 'ac_me', '', 'a'.repeat(65)]) {
      await t.rejects(call('_create_organization', { name }), { code: 'invalid_argument' }, JSON.stringify(name));
    }
    t.equal(await kernel.storage.em().count(OrganizationEntity, {}), 1, 'nothing written');
  });

  t.test('update, get and list', async (t) => {
    const updated = await call('_update_organization', { id: acme.id, display_name: 'ACME', enabled: false });
    t.match(updated, { display_name: 'ACME', enabled: false, name: 'acme' });
    await call('_update_organization', { id: acme.id, enabled: true });
    t.match(await call('_organization', { id: acme.id }), { display_name: 'ACME', enabled: true });
    await t.rejects(call('_update_organization', { id: acme.id, name: 'Bad Name' }), { code: 'invalid_argument' });
    await t.rejects(call('_organization', { id: 'nope' }), { code: 'not_found', message: 'organization not found' });
    const list = await call<{ organizations: unknown[]; pagination: { total: number } }>('_organizations', {});
    t.equal(list.pagination.total, 1);
  });

  t.test('members with org roles; adding again sets the roles', async (t) => {
    const added = await call('_add_org_member', { org_id: acme.id, user_id: ann.id, roles: ['service:org_admin'] });
    t.match(added, {
      org_id: acme.id,
      user_id: ann.id,
      email: 'ann@acme.example',
      given_name: 'Ann',
      roles: ['service:org_admin'],
    });
    t.match(await call('_add_org_member', { org_id: acme.id, user_id: bob.id }), { roles: ['member'] });
    t.match(await call('_add_org_member', { org_id: acme.id, user_id: bob.id, roles: ['billing', 'member'] }), {
      roles: ['billing', 'member'],
    });
    await t.rejects(call('_add_org_member', { org_id: acme.id, user_id: 'missing' }), { code: 'not_found' });
    await t.rejects(call('_add_org_member', { org_id: acme.id, user_id: bob.id, roles: ['bad role'] }), {
      code: 'invalid_argument',
    });
    const members = await call<{ org_members: { user_id: string }[] }>('_org_members', { org_id: acme.id });
    t.strictSame(
      members.org_members.map((m) => m.user_id),
      [ann.id, bob.id],
    );
    const orgsOfBob = await call<{ user_organizations: { organization: { id: string }; roles: string[] }[] }>(
      '_user_organizations',
      { user_id: bob.id },
    );
    t.match(orgsOfBob.user_organizations, [{ organization: { id: acme.id }, roles: ['billing', 'member'] }]);
    t.match(await call('_remove_org_member', { org_id: acme.id, user_id: bob.id }), {
      message: 'member removed successfully',
    });
    await t.rejects(call('_remove_org_member', { org_id: acme.id, user_id: bob.id }), { code: 'not_found' });
    const service = kernel.service('organizations');
    t.ok(await service.isMember(acme.id, ann.id));
    t.notOk(await service.isMember(acme.id, bob.id));
    t.strictSame(await service.adminOrgIds(ann.id), [acme.id]);
    t.equal((await service.getByName('acme'))?.id, acme.id);
  });

  t.test('a disabled organization has no org admins', async (t) => {
    const service = kernel.service('organizations');
    await call('_update_organization', { id: acme.id, enabled: false });
    t.strictSame(await service.adminOrgIds(ann.id), []);
    await call('_update_organization', { id: acme.id, enabled: true });
  });

  t.test('a failing cascade listener rolls the whole deletion back', async (t) => {
    failCascade = true;
    await t.rejects(call('_delete_organization', { id: acme.id }), { code: 'failed_precondition' });
    failCascade = false;
    t.ok(await kernel.service('organizations').get(acme.id), 'the organization is still there');
    t.equal(await kernel.storage.em().count(OrgMemberEntity, { orgId: acme.id }), 1, 'and its members');
  });

  t.test('deleting a user removes its memberships', async (t) => {
    const carl = await users.create({ email: 'carl@acme.example', signup_method: 'basic_auth', roles: ['user'] });
    await call('_add_org_member', { org_id: acme.id, user_id: carl.id });
    await users.delete(carl.id);
    t.equal(await kernel.storage.em().count(OrgMemberEntity, { userId: carl.id }), 0);
  });

  t.test('deleting the organization removes its members', async (t) => {
    t.match(await call('_delete_organization', { id: acme.id }), { message: 'organization deleted successfully' });
    t.equal(await kernel.storage.em().count(OrgMemberEntity, { orgId: acme.id }), 0);
    await t.rejects(call('_delete_organization', { id: acme.id }), { code: 'not_found' });
    t.ok(await users.findById(ann.id), 'the users stay');
  });
});
