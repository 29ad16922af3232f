/**
 * A SCIM user created without `userName` takes its primary email as the userName: the created
 * resource, a read and the IdP's duplicate probe (`filter=userName eq "<email>"`) all show it.
 */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { admin } from '../organizations/client.js';
import { USER, scim } from './scim-client.js';

t.test('userName defaults to the primary email', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const org = await admin(server, 'create_organization', { name: 'initech' });
  const { token } = (await admin(server, 'create_scim_endpoint', { org_id: org.id })) as { token: string };

  const created = await scim(server, token, 'POST', '/Users', {
    schemas: [USER],
    name: { givenName: 'Peter', familyName: 'Gibbons' },
    emails: [
      { value: 'peter.home@example.com', primary: false },
      { value: 'peter@initech.example', primary: true },
    ],
    active: true,
  });
  t.equal(created.status, 201);
  t.match(created.contentType, /application\/scim\+json/);
  t.equal(created.body!.userName, 'peter@initech.example', 'the primary email, not the first one');
  const id = created.body!.id as string;

  const read = await scim(server, token, 'GET', `/Users/${id}`);
  t.match(read.body, { id, userName: 'peter@initech.example', name: { givenName: 'Peter', familyName: 'Gibbons' } });

  const probe = await scim(
    server,
    token,
    'GET',
    `/Users?filter=${encodeURIComponent('userName eq "peter@initech.example"')}`,
  );
  t.equal(probe.body!.totalResults, 1, 'the duplicate probe finds it');
  t.match(probe.body!.Resources, [{ id }]);
});
