/**
 * Client registry: admins create, read, list, update, rotate and delete clients; the secret is
 * shown only at create and rotate and is stored hashed; inactive clients fail authentication
 * checks of the OAuth server through `authenticate` + `isActive`.
 */
import t from 'tap';
import { adminPlugin } from '../../../plugins/admin/index.js';
import { clientRegistryPlugin } from '../../../plugins/client-registry/index.js';
import { OAuthClientEntity } from '../../../plugins/client-registry/entities.js';
import { keysPlugin } from '../../../plugins/keys/index.js';
import { serverPlugin } from '../../../plugins/server/index.js';
import { bootTestKernel, testContext } from '../../helpers/kernel.js';

const ADMIN = 'registry-admin-secret';

t.test('client registry', async (t) => {
  const { kernel, close } = await bootTestKernel({
    plugins: [serverPlugin, keysPlugin, adminPlugin, clientRegistryPlugin],
    flags: {
      url: 'http://localhost:9999',
      'admin-secret': ADMIN,
      'client-id': 'app',
      'client-secret': 'app-secret',
      'jwt-type': 'HS256',
      'jwt-secret': 'registry-test-secret-0123456789abcdef',
      'allowed-origins': ['http://localhost:3000'],
    },
  });
  t.teardown(close);
  const admin = () => testContext(kernel, { headers: { 'x-service-admin-secret': ADMIN } });
  const registry = kernel.service('client-registry');

  t.test('admin operations need the admin', async (t) => {
    await t.rejects(kernel.invoke('_clients', testContext(kernel), {}), { code: 'unauthenticated' });
    await t.rejects(kernel.invoke('_create_client', testContext(kernel), { name: 'x', allowed_scopes: [] }), {
      code: 'unauthenticated',
    });
  });

  t.test('create returns the secret once; it is stored hashed', async (t) => {
    const created = (await kernel.invoke('_create_client', admin(), {
      name: 'Billing service',
      description: 'nightly jobs',
      allowed_scopes: ['openid', 'billing:read'],
      redirect_uris: ['https://billing.example.com/cb', 'http://localhost:8000/cb'],
    })) as {
      client: { id: string; client_id: string; is_active: boolean; allowed_scopes: string[] };
      client_secret: string;
    };
    t.match(created.client, {
      name: 'Billing service',
      description: 'nightly jobs',
      is_active: true,
      allowed_scopes: ['openid', 'billing:read'],
    });
    t.ok(created.client_secret.length >= 40, 'a long random secret');
    const row = (await kernel.storage.em().findOne(OAuthClientEntity, { id: created.client.id })) as {
      secretDigest: string;
    } | null;
    t.ok(row);
    t.notOk(row!.secretDigest.includes(created.client_secret), 'the secret itself is not stored');

    const read = (await kernel.invoke('_client', admin(), { id: created.client.id })) as Record<string, unknown>;
    t.notOk('client_secret' in read, 'get never returns the secret');
    t.equal(read.client_id, created.client.client_id);

    t.ok(await registry.authenticate(created.client.client_id, created.client_secret), 'the secret authenticates');
    t.equal(
      await registry.authenticate(created.client.client_id, created.client_secret + 'x'),
      null,
      'a wrong secret does not',
    );

    const rotated = (await kernel.invoke('_rotate_client_secret', admin(), { id: created.client.id })) as {
      client_secret: string;
    };
    t.not(rotated.client_secret, created.client_secret);
    t.equal(
      await registry.authenticate(created.client.client_id, created.client_secret),
      null,
      'the old secret stops working at once',
    );
    t.ok(await registry.authenticate(created.client.client_id, rotated.client_secret));

    const updated = (await kernel.invoke('_update_client', admin(), {
      id: created.client.id,
      is_active: false,
      name: 'Billing',
    })) as { is_active: boolean; name: string };
    t.equal(updated.is_active, false);
    t.equal(updated.name, 'Billing');
    t.equal(
      (await registry.findByClientId(created.client.client_id))?.isActive,
      false,
      'lookups see the change at once',
    );

    const client = (await registry.findByClientId(created.client.client_id))!;
    t.ok(registry.redirectAllowed(client, 'https://billing.example.com/cb'));
    t.notOk(registry.redirectAllowed(client, 'https://billing.example.com/cb/'), 'matching is exact');
    t.notOk(registry.redirectAllowed(client, 'https://billing.example.com/cb?x=1'));

    t.same(await kernel.invoke('_delete_client', admin(), { id: created.client.id }), {
      message: 'client deleted successfully',
    });
    await t.rejects(kernel.invoke('_client', admin(), { id: created.client.id }), { code: 'not_found' });
    t.equal(await registry.findByClientId(created.client.client_id), null);
  });

  t.test('bad input is a clear invalid_argument and writes nothing', async (t) => {
    await t.rejects(
      kernel.invoke('_create_client', admin(), {
        name: 'x',
        allowed_scopes: [],
        redirect_uris: ['http://evil.example.com/cb'],
      }),
      {
        code: 'invalid_argument',
        message: /loopback/,
      },
    );
    await t.rejects(
      kernel.invoke('_create_client', admin(), {
        name: 'x',
        allowed_scopes: [],
        redirect_uris: ['https://a.example.com/cb#frag'],
      }),
      { code: 'invalid_argument' },
    );
    await t.rejects(kernel.invoke('_create_client', admin(), { name: 'x', allowed_scopes: ['bad scope'] }), {
      code: 'invalid_argument',
    });
    await t.rejects(kernel.invoke('_create_client', admin(), { name: '   ', allowed_scopes: [] }), {
      code: 'invalid_argument',
    });
    await t.rejects(kernel.invoke('_create_client', admin(), { allowed_scopes: [] }), { code: 'invalid_argument' });
    await t.rejects(kernel.invoke('_update_client', admin(), { id: 'nope' }), { code: 'not_found' });
    const list = (await kernel.invoke('_clients', admin(), {})) as { pagination: { total: number } };
    t.equal(list.pagination.total, 0, 'no half-written rows');
  });

  t.test('list paginates', async (t) => {
    for (let i = 0; i < 3; i++) await kernel.invoke('_create_client', admin(), { name: `c${i}`, allowed_scopes: [] });
    const page = (await kernel.invoke('_clients', admin(), { pagination: { limit: 2, page: 2 } })) as {
      pagination: { limit: number; page: number; offset: number; total: number };
      clients: { name: string }[];
    };
    t.same(page.pagination, { limit: 2, page: 2, offset: 2, total: 3 });
    t.same(
      page.clients.map((c) => c.name),
      ['c2'],
    );
  });

  t.test('the built-in client uses --client-secret and --allowed-origins', async (t) => {
    const app = await registry.authenticate('app', 'app-secret');
    t.ok(app?.builtIn);
    t.equal(await registry.authenticate('app', 'wrong'), null);
    t.ok(registry.redirectAllowed(app!, 'http://localhost:3000/anything'));
    t.notOk(registry.redirectAllowed(app!, 'http://localhost:3001/cb'));
  });

  t.test('a client id holding a control character is no client (it reached the SQL text: a 500)', async (t) => {
    t.equal(await registry.findByClientId('a\u0000b'), null);
    t.equal(await registry.authenticate('a\u0000b', 'x'), null);
  });
});

t.test("with --allowed-origins * the built-in client redirects only within the service's own site", async (t) => {
  const boot = (url: string) =>
    bootTestKernel({
      plugins: [serverPlugin, keysPlugin, adminPlugin, clientRegistryPlugin],
      flags: {
        url,
        'admin-secret': ADMIN,
        'client-id': 'app',
        'client-secret': 'app-secret',
        'jwt-type': 'HS256',
        'jwt-secret': 'registry-test-secret-0123456789abcdef',
        'allowed-origins': ['*'],
      },
    });
  const prod = await boot('https://auth.example.com');
  t.teardown(prod.close);
  const app = (await prod.kernel.service('client-registry').findByClientId('app'))!;
  const allows = (uri: string) => prod.kernel.service('client-registry').redirectAllowed(app, uri);
  t.ok(allows('https://auth.example.com/cb'), 'its own host');
  t.ok(allows('https://app.example.com/cb'), 'a sibling under the parent domain');
  t.ok(allows('https://example.com/'), 'the parent domain itself');
  t.notOk(
    allows('https://attacker.example/cb'),
    'another site: no token leaves (it did, and an account was taken over)',
  );
  t.notOk(allows('https://example.com.attacker.net/cb'), 'a look-alike');
  t.notOk(allows('http://localhost:3000/cb'), 'loopback only when the service itself is on loopback');
  // Same site, but not down from https and only web schemes (tokens went to all of these).
  for (const uri of [
    'http://auth.example.com/cb',
    'http://app.example.com/cb',
    'ftp://auth.example.com/x',
    'ws://app.example.com/',
    'wss://app.example.com/',
  ]) {
    t.notOk(allows(uri), `${uri}: no scheme downgrade, no other scheme`);
  }
  t.ok(prod.kernel.service('client-registry').logoutRedirectAllowed(app, 'https://app.example.com/bye'));
  t.notOk(
    prod.kernel.service('client-registry').logoutRedirectAllowed(app, 'https://evil.example/x'),
    'logout is no open redirect either',
  );
  const dev = await boot('http://localhost:8080');
  t.teardown(dev.close);
  const devApp = (await dev.kernel.service('client-registry').findByClientId('app'))!;
  t.ok(
    dev.kernel.service('client-registry').redirectAllowed(devApp, 'http://localhost:3000/cb'),
    'development: loopback to loopback',
  );
  t.ok(
    dev.kernel.service('client-registry').redirectAllowed(devApp, 'https://localhost:3000/cb'),
    'development: https is fine too',
  );
  t.notOk(
    dev.kernel.service('client-registry').redirectAllowed(devApp, 'ws://localhost:3000/cb'),
    'development: not another scheme',
  );
  t.notOk(dev.kernel.service('client-registry').redirectAllowed(devApp, 'https://attacker.example/cb'));
  // A service directly under a multi-label public suffix: its "parent domain" was the suffix,
  // so every `.co.uk` (or `.github.io`) host could receive the built-in client's tokens.
  for (const [url, stranger] of [
    ['https://example.co.uk', 'https://attacker.co.uk/cb'],
    ['https://myapp.github.io', 'https://attacker.github.io/cb'],
  ]) {
    const suffixed = await boot(url);
    t.teardown(suffixed.close);
    const own = (await suffixed.kernel.service('client-registry').findByClientId('app'))!;
    t.ok(suffixed.kernel.service('client-registry').redirectAllowed(own, `${url}/cb`), `${url}: its own host`);
    t.notOk(
      suffixed.kernel.service('client-registry').redirectAllowed(own, stranger),
      `${url}: another site under the same public suffix`,
    );
  }
});
