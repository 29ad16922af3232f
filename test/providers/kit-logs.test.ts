/**
 * What the kit logs when an exchange fails: the provider, the step and an error code, and never
 * the authorization code, the client secret or a token the provider issued. The kernel runs with
 * a logger that keeps every record; the routes are called as the HTTP transport calls them.
 */
import t from 'tap';
import type { Logger } from '../../core/logger.js';
import type { RawRoute } from '../../core/plugin.js';
import { socialPlugin } from '../../plugins/social/index.js';
import { genericOidcProvider } from '../../providers/index.js';
import { bootTestKernel, testContext } from '../helpers/kernel.js';
import { oauthPlugins } from '../plugins/oauth-server/setup.js';
import { startJoseIssuer } from './helpers/jose-issuer.js';
import { APP_CALLBACK } from './helpers/latchkey.js';

const SECRET = 'log-check-secret-0123456789';
const idp = await startJoseIssuer({ clientId: 'log-client', client: { secret: SECRET } });
t.teardown(() => idp.close());

const records: unknown[] = [];
const keep = (obj: unknown, msg?: string) => void records.push({ obj, msg });
const logger: Logger = { debug: keep, info: keep, warn: keep, error: keep };

const tk = await bootTestKernel({
  plugins: [...oauthPlugins, socialPlugin, genericOidcProvider],
  logger,
  flags: {
    url: 'http://localhost:5597',
    'admin-secret': 'log-admin',
    'client-id': 'log-app',
    'client-secret': 'log-app-secret',
    'jwt-type': 'HS256',
    'jwt-secret': 'log-jwt-secret-0123456789-0123456789',
    'oidc-client-id': 'log-client',
    'oidc-client-secret': SECRET,
    'oidc-issuer-url': idp.issuer,
  },
});
t.teardown(() => tk.close());

const route = (method: string, path: string): RawRoute => {
  const found = tk.kernel.routes.find((r) => r.method === method && r.path === path);
  if (!found) throw new Error(`no ${method} ${path}`);
  return found;
};

t.test('a refused ID token is logged by its reason only', async (t) => {
  idp.nextAccount = { sub: 'log-sub', claims: { email: 'log@example.com', email_verified: true } };
  idp.tamperNext = 'bad-signature';
  const start = testContext(tk.kernel);
  const login = await route('GET', '/oauth_login/oidc').handler(
    {
      method: 'GET',
      path: '/oauth_login/oidc',
      query: { redirect_uri: APP_CALLBACK, state: 's' },
      headers: {},
      body: undefined,
    },
    start,
  );
  const state = start.setCookies.find((c) => c.name === 'latchkey_social_state')!.value;
  const atIdp = await fetch(String(login.headers?.location), { redirect: 'manual' });
  const callback = new URL(atIdp.headers.get('location')!);
  const code = callback.searchParams.get('code')!;
  const ctx = testContext(tk.kernel, { headers: { cookie: `latchkey_social_state=${state}` } });
  const answer = await route('GET', '/oauth_callback/oidc').handler(
    {
      method: 'GET',
      path: '/oauth_callback/oidc',
      query: Object.fromEntries(callback.searchParams),
      headers: {},
      body: undefined,
    },
    ctx,
  );
  t.match(String(answer.headers?.location), /error=server_error/);
  t.equal(idp.issued.length, 2, 'the provider issued an access and an ID token');

  const failure = records.find((r) => (r as { msg?: string }).msg === 'social login failed') as
    { obj: Record<string, unknown> } | undefined;
  t.ok(failure, 'the failure is logged');
  t.same(Object.keys(failure?.obj ?? {}).sort(), ['provider', 'reason', 'step']);
  t.equal(failure?.obj.provider, 'oidc');
  t.match(failure?.obj.reason, /^[A-Za-z0-9_.:-]+$/, 'a code, not a message');
  const text = JSON.stringify(records);
  for (const [what, value] of [['code', code], ['client secret', SECRET], ...idp.issued.map((v) => ['token', v])])
    t.notOk(text.includes(value), `the log holds no ${what}`);
});
