/**
 * SCIM 2.0 provisioning, black-box ("Authentication/SCIM", "User access").
 * The request sequences Microsoft Entra ID and Okta send while provisioning a user (written from
 * their public SCIM documentation: the duplicate probe by userName, create, read, updates in each
 * vendor's PATCH or PUT form, deactivation, reactivation, delete) are replayed against the
 * started server and end in the expected user states. Deactivation ends sessions and refresh
 * tokens at once; a user created inactive can never sign in; one organization's token cannot
 * read or change another's users; tokens are shown once, stored hashed, and rotation ends the old.
 */
import t from 'tap';
import type { DomainEvent } from '../../../core/events.js';
import { ScimEndpointEntity, ScimUserEntity } from '../../../plugins/scim/entities.js';
import { UserEntity } from '../../../plugins/users/entities.js';
import { testContext } from '../../helpers/kernel.js';
import { startTestServer } from '../../helpers/server.js';
import { admin, rest } from '../organizations/client.js';
import { ENTERPRISE, ERROR, PATCH_OP, USER, scim } from './scim-client.js';

t.test('SCIM provisioning', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const events: DomainEvent[] = [];
  server.kernel.events.on('*', (e) => void (e.name.startsWith('user.') && events.push(e)));
  const contoso = await admin(server, 'create_organization', { name: 'contoso' });
  const globex = await admin(server, 'create_organization', { name: 'globex' });
  const contosoId = contoso.id as string;
  await admin(server, 'add_verified_org_domain', { org_id: contoso.id, domain: 'contoso.example' });
  const created = (await admin(server, 'create_scim_endpoint', { org_id: contoso.id })) as {
    scim_endpoint: { id: string; org_id: string; enabled: boolean };
    token: string;
  };
  const contosoToken = created.token;
  const globexToken = ((await admin(server, 'create_scim_endpoint', { org_id: globex.id })) as { token: string }).token;
  const userCount = () => server.kernel.storage.em().count(UserEntity, {});

  t.test('endpoint: token shown once, stored hashed', async (t) => {
    t.match(created.scim_endpoint, { org_id: contoso.id, enabled: true });
    const read = await admin(server, 'scim_endpoint', { org_id: contoso.id });
    t.notOk('token' in read);
    const row = (await server.kernel.storage.em().findOne(ScimEndpointEntity, { orgId: contosoId })) as {
      tokenDigest: string;
    };
    t.notOk(row.tokenDigest.includes(contosoToken.split('.')[1]), 'only a digest is stored');
    const again = await rest(server, 'admin/create_scim_endpoint', { org_id: contoso.id }, { admin: true });
    t.equal(again.status, 409);
  });

  let alexId = '';
  t.test('Microsoft Entra ID sequence', async (t) => {
    const probe = await scim(
      server,
      contosoToken,
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "alex.w@contoso.example"')}`,
    );
    t.equal(probe.status, 200);
    t.match(probe.contentType, /^application\/scim\+json/);
    t.match(probe.body, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 0,
      Resources: [],
    });

    const post = await scim(server, contosoToken, 'POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: 'e-100',
      userName: 'alex.w@contoso.example',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'alex.w@contoso.example' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Alex Wu', familyName: 'Wu', givenName: 'Alex' },
      roles: [],
      [ENTERPRISE]: { employeeNumber: '42', department: 'Research' },
    });
    t.equal(post.status, 201);
    alexId = post.body!.id as string;
    t.equal(post.headers.get('location'), `${server.url}/scim/v2/Users/${alexId}`);
    t.match(post.body, {
      schemas: [USER],
      externalId: 'e-100',
      userName: 'alex.w@contoso.example',
      active: true,
      name: { givenName: 'Alex', familyName: 'Wu' },
      emails: [{ value: 'alex.w@contoso.example', primary: true }],
      meta: { resourceType: 'User' },
    });

    const found = await scim(
      server,
      contosoToken,
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "ALEX.W@contoso.example"')}`,
    );
    t.equal(found.body!.totalResults, 1, 'userName matches case-insensitively');
    t.equal((found.body!.Resources as { id: string }[])[0].id, alexId);

    const update = await scim(server, contosoToken, 'PATCH', `/Users/${alexId}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'alex.wu@contoso.example' },
        { op: 'Replace', path: 'name.familyName', value: 'Wu-Li' },
        { op: 'Add', path: 'title', value: 'Engineer' },
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Platform' },
      ],
    });
    t.equal(update.status, 200, JSON.stringify(update.body));
    t.match(update.body, {
      name: { familyName: 'Wu-Li' },
      emails: [{ value: 'alex.wu@contoso.example', primary: true }],
    });
    const user = await admin(server, 'user', { id: alexId });
    t.equal(user.email, 'alex.wu@contoso.example', "the primary address is the user record's email");
    t.equal(user.email_verified, true, 'verified: the domain is one the organization verified');

    const rename = await scim(server, contosoToken, 'PATCH', `/Users/${alexId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'userName', value: 'alex.wu@contoso.example' }],
    });
    t.equal(rename.body!.userName, 'alex.wu@contoso.example');

    const disable = await scim(server, contosoToken, 'PATCH', `/Users/${alexId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    t.equal(disable.status, 200);
    t.equal(disable.body!.active, false, 'the string "False" is false');
    t.ok((await admin(server, 'user', { id: alexId })).revoked_timestamp, 'revoked');

    const enable = await scim(server, contosoToken, 'PATCH', `/Users/${alexId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: 'True', 'name.givenName': 'Alexandra' } }],
    });
    t.match(enable.body, { active: true, name: { givenName: 'Alexandra', familyName: 'Wu-Li' } });

    const deleted = await scim(server, contosoToken, 'DELETE', `/Users/${alexId}`);
    t.equal(deleted.status, 204);
    const after = await scim(server, contosoToken, 'GET', `/Users/${alexId}`);
    t.equal(after.status, 200, 'DELETE deactivates; the user stays');
    t.equal(after.body!.active, false);
    t.ok(await admin(server, 'user', { id: alexId }));
  });

  t.test('Okta sequence', async (t) => {
    const probe = await scim(
      server,
      contosoToken,
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "dana@okta.example"')}&startIndex=1&count=100`,
    );
    t.equal(probe.body!.totalResults, 0);
    const post = await scim(server, contosoToken, 'POST', '/Users', {
      schemas: [USER],
      userName: 'dana@okta.example',
      name: { givenName: 'Dana', familyName: 'Diaz' },
      emails: [{ primary: true, value: 'dana@okta.example', type: 'work' }],
      displayName: 'Dana Diaz',
      locale: 'en-US',
      externalId: '00u1abcd',
      groups: [],
      password: 'Ignored-Pass-1',
      active: true,
    });
    t.equal(post.status, 201);
    const id = post.body!.id as string;
    const dana = await admin(server, 'user', { id });
    t.equal(dana.email_verified, false, 'not a domain of the organization: not taken as verified');
    const login = await rest(server, 'login', { email: 'dana@okta.example', password: 'Ignored-Pass-1' });
    t.not(login.status, 200, 'a password sent by the IdP is not kept');

    const read = await scim(server, contosoToken, 'GET', `/Users/${id}`);
    t.match(read.body, { userName: 'dana@okta.example', externalId: '00u1abcd', active: true });

    const put = await scim(server, contosoToken, 'PUT', `/Users/${id}`, {
      schemas: [USER],
      id,
      userName: 'dana@okta.example',
      name: { givenName: 'Dana', familyName: 'Diaz-Lopez' },
      emails: [{ primary: true, value: 'dana@okta.example', type: 'work' }],
      displayName: 'Dana Diaz-Lopez',
      externalId: '00u1abcd',
      active: true,
    });
    t.equal(put.status, 200);
    t.match(put.body, { name: { familyName: 'Diaz-Lopez' } });

    const off = await scim(server, contosoToken, 'PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    t.equal(off.body!.active, false);
    const on = await scim(server, contosoToken, 'PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: true } }],
    });
    t.equal(on.body!.active, true);
    t.notOk((await admin(server, 'user', { id })).revoked_timestamp, 'reactivated');
  });

  t.test('deactivation ends sessions and refresh tokens at once', async (t) => {
    const post = await scim(server, contosoToken, 'POST', '/Users', {
      schemas: [USER],
      userName: 'sam@contoso.example',
      emails: [{ value: 'sam@contoso.example', primary: true }],
    });
    const id = post.body!.id as string;
    await server.kernel.service('users').update(id, { password: 'Secret-123' });
    const login = await rest(server, 'login', {
      email: 'sam@contoso.example',
      password: 'Secret-123',
      scope: ['openid', 'offline_access'],
    });
    t.equal(login.status, 200, JSON.stringify(login.body));
    const access = login.body.access_token as string;
    const refresh = login.body.refresh_token as string;
    t.ok(refresh, 'a refresh token');
    const profile = () => fetch(`${server.url}/v1/profile`, { headers: { authorization: `Bearer ${access}` } });
    t.equal((await profile()).status, 200);
    await scim(server, contosoToken, 'PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    t.equal((await profile()).status, 401, 'the held access token fails');
    const refreshed = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: 'test-client' }),
    });
    t.ok(refreshed.status >= 400 && refreshed.status < 500, 'the refresh token cannot be redeemed');
    const again = await rest(server, 'login', { email: 'sam@contoso.example', password: 'Secret-123' });
    t.equal(again.status, 403, 'no new sign-in while inactive');
  });

  t.test('a user created inactive never gets a token', async (t) => {
    const post = await scim(server, contosoToken, 'POST', '/Users', {
      schemas: [USER],
      userName: 'late@contoso.example',
      active: false,
    });
    t.equal(post.status, 201);
    t.equal(post.body!.active, false);
    const id = post.body!.id as string;
    t.ok((await admin(server, 'user', { id })).revoked_timestamp, 'revoked from birth');
    await server.kernel.service('users').update(id, { password: 'Secret-123' });
    const login = await rest(server, 'login', { email: 'late@contoso.example', password: 'Secret-123' });
    t.equal(login.status, 403);
    t.notOk(login.body.access_token);
    // Any other login path (organization SSO, a social provider) ends in the sign-in service,
    // whose gate refuses the revoked user too.
    const user = (await server.kernel.service('users').findById(id, { fresh: true }))!;
    await t.rejects(
      server.kernel.service('sign-in').complete(testContext(server.kernel), {
        user,
        method: 'sso',
        roles: [],
        scopes: ['openid'],
        amr: ['ext'],
        message: 'signed in',
      }),
      { code: 'permission_denied', message: 'user access has been revoked' },
    );
    t.strictSame(await server.kernel.memory.keys(`session:${id}:`), [], 'no session was started for the user');
  });

  t.test("one organization's token cannot read or change another's users", async (t) => {
    const post = await scim(server, contosoToken, 'POST', '/Users', {
      schemas: [USER],
      userName: 'kim@contoso.example',
      name: { givenName: 'Kim' },
    });
    const id = post.body!.id as string;
    const missing = '0190f1a2-7b3c-7d4e-8f5a-6b7c8d9e0f1a';
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { schemas: [USER], userName: 'taken@globex.example', active: false }],
      ['PATCH', { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }],
      ['DELETE', undefined],
    ] as const) {
      const foreign = await scim(server, globexToken, method, `/Users/${id}`, body);
      const absent = await scim(server, globexToken, method, `/Users/${missing}`, body);
      t.equal(foreign.status, 404, method);
      t.strictSame(foreign.body, absent.body, `${method}: the same as a missing user`);
    }
    const probe = await scim(
      server,
      globexToken,
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "kim@contoso.example"')}`,
    );
    t.equal(probe.body!.totalResults, 0);
    const kim = await scim(server, contosoToken, 'GET', `/Users/${id}`);
    t.match(kim.body, { active: true, userName: 'kim@contoso.example', name: { givenName: 'Kim' } }, 'unchanged');
    const taken = await scim(server, globexToken, 'POST', '/Users', {
      schemas: [USER],
      userName: 'kim@contoso.example',
    });
    t.equal(taken.status, 409, "another organization cannot claim an existing user's address");
  });

  t.test('authentication: missing, malformed, wrong, rotated and deleted tokens are 401', async (t) => {
    const rotated = (await admin(server, 'rotate_scim_token', { org_id: globex.id })) as { token: string };
    const [id, secret] = contosoToken.slice('scim_'.length).split('.');
    for (const token of [
      null,
      'nonsense',
      `scim_${id}`,
      `scim_${id}.${secret}x`,
      `scim_${id}.${secret.slice(0, -1)}`,
      `scim_0190f1a2-7b3c-7d4e-8f5a-6b7c8d9e0f1a.${secret}`,
      globexToken,
    ]) {
      const answer = await scim(server, token, 'GET', '/Users');
      t.equal(answer.status, 401, String(token));
      t.match(answer.body, { schemas: [ERROR], status: '401' });
      t.match(answer.headers.get('www-authenticate'), /^Bearer/);
    }
    t.equal((await scim(server, rotated.token, 'GET', '/Users')).status, 200, 'the new token works');
    await admin(server, 'update_organization', { id: globex.id, enabled: false });
    t.equal(
      (await scim(server, rotated.token, 'GET', '/Users')).status,
      401,
      'a disabled organization provisions nothing',
    );
    await admin(server, 'update_organization', { id: globex.id, enabled: true });
    t.equal((await scim(server, rotated.token, 'GET', '/Users')).status, 200, 'and again once enabled');
    await admin(server, 'delete_scim_endpoint', { org_id: globex.id });
    t.equal((await scim(server, rotated.token, 'GET', '/Users')).status, 401, 'a deleted endpoint ends its token');
  });

  t.test('bad input: SCIM errors, never a 5xx, nothing written', async (t) => {
    const before = await userCount();
    const links = await server.kernel.storage.em().count(ScimUserEntity, {});
    const kimId = (
      (
        await scim(
          server,
          contosoToken,
          'GET',
          `/Users?filter=${encodeURIComponent('userName eq "kim@contoso.example"')}`,
        )
      ).body!.Resources as { id: string }[]
    )[0].id;
    const cases: [string, string, unknown, { raw?: string; contentType?: string }?][] = [
      ['POST', '/Users', undefined, { raw: '{"schemas":' }],
      ['POST', '/Users', undefined, { raw: '' }],
      ['POST', '/Users', undefined, { raw: '<xml/>', contentType: 'application/xml' }],
      ['POST', '/Users', []],
      ['POST', '/Users', 'text'],
      ['POST', '/Users', { userName: 'no-schemas@contoso.example' }],
      ['POST', '/Users', { schemas: [USER], userName: 42 }],
      ['POST', '/Users', { schemas: [USER], userName: 'x'.repeat(300) }],
      ['POST', '/Users', { schemas: [USER], userName: 'no-email' }],
      ['POST', '/Users', { schemas: [USER], userName: 'a@contoso.example', emails: 'a@contoso.example' }],
      ['POST', '/Users', { schemas: [USER], userName: 'a@contoso.example', emails: [{ value: 'not an address' }] }],
      ['POST', '/Users', { schemas: [USER], userName: 'a@contoso.example', emails: [{}] }],
      ['POST', '/Users', { schemas: [USER], userName: 'a@contoso.example', active: 'maybe' }],
      ['POST', '/Users', { schemas: [USER], userName: 'a@contoso.example', name: 'A' }],
      [
        'POST',
        '/Users',
        { schemas: [USER], userName: 'KIM@contoso.example', emails: [{ value: 'new@contoso.example' }] },
      ],
      ['POST', '/Users', { schemas: [USER], userName: 'other', emails: [{ value: 'kim@contoso.example' }] }],
      ['POST', '/Users', { schemas: [USER], userName: 'a\u0000b@contoso.example' }],
      ['GET', `/Users?filter=${encodeURIComponent('emails co "x"')}`, undefined],
      ['GET', `/Users?filter=${encodeURIComponent('userName eq')}`, undefined],
      ['GET', `/Users?filter=${encodeURIComponent('userName eq "a" or userName eq "b"')}`, undefined],
      ['GET', `/Users?filter=a&filter=b`, undefined],
      ['GET', '/Teams', undefined],
      ['GET', '/Users/%E0%A4%A', undefined],
      ['POST', '/Groups', { schemas: [USER], displayName: 'no group schema' }],
      ['POST', '/Bulk', {}],
      ['PATCH', `/Users/${kimId}`, { Operations: [{ op: 'replace', path: 'active', value: false }] }],
      ['PATCH', `/Users/${kimId}`, { schemas: [PATCH_OP] }],
      ['PATCH', `/Users/${kimId}`, { schemas: [PATCH_OP], Operations: [] }],
      ['PATCH', `/Users/${kimId}`, { schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'active', value: false }] }],
      ['PATCH', `/Users/${kimId}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }],
      ['PATCH', `/Users/${kimId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active' }] }],
      [
        'PATCH',
        `/Users/${kimId}`,
        { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: 'nah' }] },
      ],
      ['PATCH', `/Users/${kimId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: 'active' }] }],
      [
        'PATCH',
        `/Users/${kimId}`,
        { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[type eq', value: 'x' }] },
      ],
      [
        'PATCH',
        `/Users/${kimId}`,
        { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: 7 }] },
      ],
      [
        'PUT',
        `/Users/${kimId}`,
        { schemas: [USER], userName: 'kim@contoso.example', emails: [{ value: 'dana@okta.example' }] },
      ],
      ['PUT', `/Users/${kimId}`, { schemas: [USER], userName: 'dana@okta.example' }],
      ['PUT', `/Users/${kimId}`, 'x'],
    ];
    for (const [method, path, body, options] of cases) {
      const answer = await scim(server, contosoToken, method, path, body, options);
      const label = `${method} ${path} ${options?.raw ?? JSON.stringify(body)}`;
      t.ok(answer.status >= 400 && answer.status < 500, `${label}: ${answer.status}`);
      t.match(answer.body, { schemas: [ERROR], status: String(answer.status), detail: String }, label);
      t.match(answer.contentType, /application\/scim\+json/, label);
    }
    t.equal(await userCount(), before, 'no user was created');
    t.equal(await server.kernel.storage.em().count(ScimUserEntity, {}), links);
    const kim = await scim(server, contosoToken, 'GET', `/Users/${kimId}`);
    t.match(
      kim.body,
      { active: true, userName: 'kim@contoso.example', emails: [{ value: 'kim@contoso.example' }] },
      'kim unchanged',
    );
  });

  t.test('discovery documents', async (t) => {
    const config = await scim(server, null, 'GET', '/ServiceProviderConfig');
    t.match(config.body, { patch: { supported: true }, bulk: { supported: false }, filter: { supported: true } });
    const types = await scim(server, null, 'GET', '/ResourceTypes');
    t.match(types.body, {
      totalResults: 2,
      Resources: [{ id: 'User', endpoint: '/Users', schema: USER }, { id: 'Group' }],
    });
    const schemas = await scim(server, null, 'GET', '/Schemas');
    t.match(schemas.body, { Resources: [{ id: USER }] });
    t.match((await scim(server, null, 'GET', `/Schemas/${USER}`)).body, { id: USER });
    t.equal((await scim(server, null, 'GET', '/Schemas/urn:example:unknown')).status, 404);
  });

  t.test('the provisioning events', async (t) => {
    await server.kernel.events.drain();
    const names = new Set(events.map((e) => e.name));
    for (const name of ['user.provisioned', 'user.deprovisioned', 'user.scim_updated']) t.ok(names.has(name), name);
    t.match(events.find((e) => e.name === 'user.provisioned')?.payload, {
      org_id: contoso.id,
      user: { email: String },
    });
  });

  t.test('an unfiltered list is empty', async (t) => {
    t.match((await scim(server, contosoToken, 'GET', '/Users')).body, { totalResults: 0, Resources: [] });
  });

  t.test('deleting the organization removes its endpoint and SCIM records; users stay', async (t) => {
    const members = await server.kernel.storage.em().count(ScimUserEntity, { orgId: contosoId });
    t.ok(members > 0);
    await admin(server, 'delete_organization', { id: contoso.id });
    t.equal((await scim(server, contosoToken, 'GET', '/Users')).status, 401);
    t.equal(await server.kernel.storage.em().count(ScimUserEntity, { orgId: contosoId }), 0);
    t.ok(await admin(server, 'user', { id: alexId }));
  });
});
