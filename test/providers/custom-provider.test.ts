/**
 * The eleventh provider of examples/custom-provider.ts (GitLab, written in one file) serves a
 * full login through its own routes against a GitLab-shaped local server, contributes its Meta
 * field and flags, and gets its button on the hosted login page.
 */
import t from 'tap';
import { Kernel } from '../../core/kernel.js';
import { customProviderBuild } from '../../examples/custom-provider.js';
import { startTestServer } from '../helpers/server.js';
import { Browser, delivered, landing } from './helpers/browser.js';
import { APP_CALLBACK } from './helpers/latchkey.js';
import { startOAuthPeer } from './helpers/oauth-peer.js';

const gitlab = await startOAuthPeer({
  clientId: 'gitlab-app',
  clientSecret: 'gitlab-secret',
  tokenAuth: 'post',
  requirePkce: true,
  api: {
    '/api/v4/user': () => ({
      id: 1,
      username: 'root',
      name: 'Administrator',
      email: 'admin@gitlab.example',
      confirmed_at: '2024-01-01T00:00:00Z',
    }),
  },
});
t.teardown(() => gitlab.close());
const server = await startTestServer({
  plugins: customProviderBuild,
  flags: {
    'enable-login-page': true,
    'gitlab-client-id': 'gitlab-app',
    'gitlab-client-secret': 'gitlab-secret',
    'gitlab-authorization-url': `${gitlab.url}/authorize`,
    'gitlab-token-url': `${gitlab.url}/token`,
    'gitlab-user-url': `${gitlab.url}/api/v4/user`,
  },
});
t.teardown(() => server.close());

t.test('the example provider declares its flags and its Meta field', async (t) => {
  const flags = Kernel.flagsOf(customProviderBuild).map((f) => f.name);
  for (const f of ['gitlab-client-id', 'gitlab-client-secret', 'gitlab-scopes', 'gitlab-user-url'])
    t.ok(flags.includes(f), f);
  const meta = (await (await fetch(`${server.url}/v1/meta`)).json()) as Record<string, unknown>;
  t.equal(meta.is_gitlab_login_enabled, true);
  t.equal(meta.is_google_login_enabled, false);
});

t.test('a GitLab login through /oauth_login/gitlab signs the user up', async (t) => {
  const hops = await new Browser().follow(
    `${server.url}/oauth_login/gitlab?${new URLSearchParams({ redirectURL: APP_CALLBACK, state: 'gl' })}`,
    APP_CALLBACK,
  );
  t.equal(gitlab.authorizations.at(-1)?.get('code_challenge_method'), 'S256');
  const params = delivered(landing(hops));
  t.equal(params.get('state'), 'gl');
  const res = await fetch(`${server.url}/v1/profile`, {
    headers: { authorization: `Bearer ${params.get('access_token')}` },
  });
  const profile = (await res.json()) as Record<string, unknown>;
  t.equal(profile.email, 'admin@gitlab.example');
  t.equal(profile.email_verified, true);
  t.equal(profile.signup_methods, 'gitlab');
});

t.test('the hosted page shows its button', async (t) => {
  const html = await (await fetch(`${server.url}/app`)).text();
  t.match(html, /href="\/oauth_login\/gitlab\?[^"]*">Continue with GitLab</);
  t.notMatch(html, /oauth_login\/google/, 'and none for providers that are not configured');
});
