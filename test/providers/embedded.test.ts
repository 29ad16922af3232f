/**
 * A social login through Latchkey embedded under /auth in a host Fastify app (examples/embedding.ts):
 * the provider is sent back to /auth/oauth_callback/oidc, the state cookie is scoped there, and
 * the login ends at the application with tokens.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { withDefaults } from '../../core/config.js';
import { Kernel } from '../../core/kernel.js';
import { buildHostApp } from '../../examples/embedding.js';
import { defaultPlugins } from '../../plugins/default.js';
import { freePort } from '../helpers/ports.js';
import { Browser, delivered, landing } from './helpers/browser.js';
import { startJoseIssuer } from './helpers/jose-issuer.js';
import { APP_CALLBACK } from './helpers/latchkey.js';

const idp = await startJoseIssuer({ clientId: 'embedded-client', client: { secret: 'embedded-secret' } });
t.teardown(() => idp.close());
const dir = await mkdtemp(join(tmpdir(), 'latchkey-social-embed-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const port = await freePort();
const base = `http://localhost:${port}/auth`;
const app = await buildHostApp(
  defaultPlugins,
  withDefaults(Kernel.flagsOf(defaultPlugins), {
    'database-type': 'sqlite',
    'database-url': join(dir, 'embed.db'),
    'memory-store': 'process',
    url: base,
    'admin-secret': 'embedded-admin',
    'client-id': 'host-app',
    'client-secret': 'host-secret',
    'jwt-type': 'HS256',
    'jwt-secret': 'embedded-jwt-secret-0123456789',
    'log-level': 'silent',
    'app-cookie-secure': false,
    'oidc-client-id': 'embedded-client',
    'oidc-client-secret': 'embedded-secret',
    'oidc-issuer-url': idp.issuer,
  }),
);
t.teardown(() => app.close());
await app.listen({ port, host: '127.0.0.1' });

t.test('the login goes through /auth/oauth_callback and ends with tokens', async (t) => {
  idp.nextAccount = { sub: 'embedded-sub', claims: { email: 'host-user@example.com', email_verified: true } };
  const browser = new Browser();
  const start = `${base}/oauth_login/oidc?${new URLSearchParams({ redirect_uri: APP_CALLBACK, state: 'e' })}`;
  const hops = await browser.follow(start, APP_CALLBACK);
  const authorize = new URL(hops[0].location!);
  t.equal(authorize.searchParams.get('redirect_uri'), `${base}/oauth_callback/oidc`);
  const params = delivered(landing(hops));
  t.equal(params.get('state'), 'e');
  t.ok(params.get('access_token'), params.toString());
});
