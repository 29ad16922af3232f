/**
 * SCIM Groups: each provisioned group's members are the FGA tuples
 * `user:<id> member group:<id>`, so a model granting `group#member` a relation follows the
 * identity provider. Replays the group requests Entra ID and Okta send (probe by displayName,
 * create, add and remove members in each vendor's PATCH form, rename, delete) and checks the
 * permission answers after each; members must be the organization's users; another
 * organization's token sees nothing; a refused request writes nothing.
 */
import t from 'tap';
import { ScimGroupEntity } from '../../../plugins/scim/entities.js';
import { startTestServer } from '../../helpers/server.js';
import { admin, rest } from '../organizations/client.js';
import { PATCH_OP, USER, scim } from './scim-client.js';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const MODEL = `model
  schema 1.1
type user
type group
  relations
    define member: [user]
type document
  relations
    define viewer: [user, group#member]
`;

t.test('SCIM groups drive permission checks', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  await admin(server, 'fga/model', { dsl: MODEL }).catch(async () => {
    await rest(server, 'admin/fga/model', { dsl: MODEL }, { admin: true });
  });
  const org = await admin(server, 'create_organization', { name: 'initech' });
  const other = await admin(server, 'create_organization', { name: 'umbrella' });
  const token = ((await admin(server, 'create_scim_endpoint', { org_id: org.id })) as { token: string }).token;
  const otherToken = ((await admin(server, 'create_scim_endpoint', { org_id: other.id })) as { token: string }).token;
  const provision = async (tok: string, userName: string) =>
    (await scim(server, tok, 'POST', '/Users', { schemas: [USER], userName })).body!.id as string;
  const peter = await provision(token, 'peter@initech.example');
  const milton = await provision(token, 'milton@initech.example');
  const stranger = await provision(otherToken, 'alice@umbrella.example');
  await admin(server, 'fga/tuples', {
    tuples: [{ user: 'group:placeholder#member', relation: 'viewer', object: 'document:x' }],
  });

  const viewers = async (object: string) =>
    (
      (await admin(server, 'fga/list_users', { object, relation: 'viewer', user_type: 'user' })) as { users: string[] }
    ).users.sort();

  const probe = await scim(
    server,
    token,
    'GET',
    `/Groups?filter=${encodeURIComponent('displayName eq "Engineering"')}`,
  );
  t.match(probe.body, { totalResults: 0 });
  const created = await scim(server, token, 'POST', '/Groups', {
    schemas: [GROUP],
    externalId: 'g-1',
    displayName: 'Engineering',
    members: [],
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const groupId = created.body!.id as string;
  await admin(server, 'fga/tuples', {
    tuples: [{ user: `group:${groupId}#member`, relation: 'viewer', object: 'document:plans' }],
  });
  t.strictSame(await viewers('document:plans'), []);

  t.test('Entra ID: add members, remove one by value', async (t) => {
    const add = await scim(server, token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: peter }, { value: milton }] }],
    });
    t.equal(add.status, 200, JSON.stringify(add.body));
    t.strictSame(await viewers('document:plans'), [`user:${milton}`, `user:${peter}`].sort());
    const remove = await scim(server, token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: milton }] }],
    });
    t.equal(remove.status, 200, JSON.stringify(remove.body));
    t.strictSame(await viewers('document:plans'), [`user:${peter}`]);
  });

  t.test('Okta: remove by a value filter, rename without a path', async (t) => {
    const remove = await scim(server, token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${peter}"]` }],
    });
    t.equal(remove.status, 200, JSON.stringify(remove.body));
    t.strictSame(await viewers('document:plans'), []);
    const rename = await scim(server, token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: groupId, displayName: 'Eng' } }],
    });
    t.match(rename.body, { displayName: 'Eng', members: [] });
    const put = await scim(server, token, 'PUT', `/Groups/${groupId}`, {
      schemas: [GROUP],
      displayName: 'Eng',
      members: [{ value: milton }],
    });
    t.match(put.body, { members: [{ value: milton }] });
    t.strictSame(await viewers('document:plans'), [`user:${milton}`]);
  });

  t.test('members are users of the organization; refusals write nothing', async (t) => {
    const foreign = await scim(server, token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: stranger }] }],
    });
    t.equal(foreign.status, 400);
    const missingName = await scim(server, token, 'POST', '/Groups', { schemas: [GROUP], members: [] });
    t.equal(missingName.status, 400);
    const duplicate = await scim(server, token, 'POST', '/Groups', { schemas: [GROUP], displayName: 'ENG' });
    t.equal(duplicate.status, 409);
    t.strictSame(await viewers('document:plans'), [`user:${milton}`]);
    t.equal(await server.kernel.storage.em().count(ScimGroupEntity, {}), 1);
  });

  t.test("another organization's token sees nothing", async (t) => {
    t.equal((await scim(server, otherToken, 'GET', `/Groups/${groupId}`)).status, 404);
    t.equal((await scim(server, otherToken, 'DELETE', `/Groups/${groupId}`)).status, 404);
    t.match((await scim(server, otherToken, 'GET', '/Groups')).body, { totalResults: 0 });
  });

  t.test("deleting the organization removes its groups' tuples", async (t) => {
    const temp = await admin(server, 'create_organization', { name: 'temporary' });
    const tempToken = ((await admin(server, 'create_scim_endpoint', { org_id: temp.id })) as { token: string }).token;
    const bob = await provision(tempToken, 'bob@temporary.example');
    const g = await scim(server, tempToken, 'POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'Temps',
      members: [{ value: bob }],
    });
    await admin(server, 'fga/tuples', {
      tuples: [{ user: `group:${g.body!.id as string}#member`, relation: 'viewer', object: 'document:temp' }],
    });
    t.strictSame(await viewers('document:temp'), [`user:${bob}`]);
    await admin(server, 'delete_organization', { id: temp.id });
    await server.kernel.events.drain();
    t.strictSame(await viewers('document:temp'), []);
    t.equal(await server.kernel.storage.em().count(ScimGroupEntity, { orgId: temp.id as string }), 0);
  });

  t.test('delete removes the group and its tuples', async (t) => {
    t.equal((await scim(server, token, 'DELETE', `/Groups/${groupId}`)).status, 204);
    t.strictSame(await viewers('document:plans'), []);
    t.equal((await scim(server, token, 'GET', `/Groups/${groupId}`)).status, 404);
  });
});
