/**
 * The OpenID Connect providers (Google, LinkedIn, Roblox, Microsoft, the generic one) log users
 * in through the real /oauth_login and /oauth_callback routes against one local
 * node-oidc-provider issuer, pointed at with each provider's `--<p>-issuer-url`. The issuer is
 * tenant-shaped (`/<tenant id>/v2.0`, Microsoft's form): `--microsoft-tenant-id` admits that
 * tenant's accounts, and a token naming another tenant is refused.
 */
import t from 'tap';
import { Browser, delivered, landing } from './helpers/browser.js';
import { startOidcIssuer } from './helpers/oidc-issuer.js';
import { APP_CALLBACK, startLatchkey } from './helpers/latchkey.js';
import { freePort } from '../helpers/ports.js';
import { Kernel } from '../../core/kernel.js';
import { defaultPlugins } from '../../plugins/default.js';

const PROVIDERS = ['google', 'linkedin', 'roblox', 'microsoft', 'oidc'] as const;
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const OTHER_TENANT = '0b2f7d6c-1111-4a4a-8b8b-123456789abc';

const port = await freePort();
const base = `http://localhost:${port}`;
const idp = await startOidcIssuer({
  path: `/${TENANT}/v2.0`,
  clients: PROVIDERS.map((p) => ({
    client_id: `${p}-client`,
    client_secret: `${p}-secret-0123456789`,
    redirect_uris: [`${base}/oauth_callback/${p}`],
  })),
});
t.teardown(() => idp.close());

const flags: Record<string, string | number> = { 'http-port': port, url: base };
for (const p of PROVIDERS) {
  flags[`${p}-client-id`] = `${p}-client`;
  flags[`${p}-client-secret`] = `${p}-secret-0123456789`;
  flags[`${p}-issuer-url`] = idp.issuer;
}
flags['oidc-display-name'] = 'Company SSO';
flags['microsoft-tenant-id'] = TENANT;
const latchkey = await startLatchkey(flags);
t.teardown(() => latchkey.close());

t.test('Meta says each configured provider is enabled', async (t) => {
  const meta = (await (await fetch(`${latchkey.url}/v1/meta`)).json()) as Record<string, unknown>;
  for (const p of PROVIDERS) t.equal(meta[`is_${p}_login_enabled`], true, p);
  t.equal(meta.is_github_login_enabled, false, 'an unconfigured provider is not');
});

/** Roblox shares no email (its default scopes are openid and profile): its account has none. */
const sharesEmail = (p: string) => p !== 'roblox';

async function profileOf(accessToken: string | null): Promise<Record<string, unknown>> {
  const res = await fetch(`${latchkey.url}/v1/profile`, { headers: { authorization: `Bearer ${accessToken}` } });
  return (await res.json()) as Record<string, unknown>;
}

t.test('each provider declares its client id, secret and scopes flags; the placeholder group is gone', async (t) => {
  const flags = new Map(Kernel.flagsOf(defaultPlugins).map((f) => [f.name, f]));
  const ten = [
    'google',
    'github',
    'facebook',
    'linkedin',
    'apple',
    'discord',
    'twitter',
    'microsoft',
    'twitch',
    'roblox',
  ];
  for (const p of ten) {
    t.ok(flags.has(`${p}-client-id`), `--${p}-client-id`);
    t.equal(flags.get(`${p}-client-secret`)?.secret, true, `--${p}-client-secret is secret`);
    t.ok(flags.has(`${p}-scopes`), `--${p}-scopes`);
  }
  t.equal(flags.get('microsoft-tenant-id')?.default, 'common');
  t.notOk(
    defaultPlugins.some((p) => p.name === 'planned-social'),
    'no placeholder plugin declares them any more',
  );
});

for (const provider of PROVIDERS) {
  t.test(`${provider}: a new user signs up, then logs in again to the same account`, async (t) => {
    const email = `${provider}-user@example.com`;
    idp.nextAccount = {
      sub: `${provider}-sub-1`,
      claims: {
        email,
        email_verified: true,
        given_name: 'Ada',
        family_name: 'Lovelace',
        preferred_username: 'ada',
        tid: TENANT,
      },
    };
    const browser = new Browser();
    const hops = await browser.follow(latchkey.loginUrl(provider, { state: 'xyz' }), APP_CALLBACK);
    t.ok(hops[0].location?.startsWith(idp.issuer), 'the login goes to the provider');
    const auth = new URL(hops[0].location!);
    t.equal(auth.searchParams.get('redirect_uri'), `${base}/oauth_callback/${provider}`);
    t.ok(auth.searchParams.get('nonce'), 'a nonce is sent to an OpenID Connect provider');
    const params = delivered(landing(hops));
    t.equal(params.get('state'), 'xyz', "the application's state comes back unchanged");
    t.ok(params.get('access_token'), 'an access token is delivered');
    t.ok(params.get('id_token'), 'an ID token is delivered');

    const profile = await profileOf(params.get('access_token'));
    t.equal(profile.given_name, 'Ada', 'the profile comes from the provider');
    t.same(profile.signup_methods, provider, 'signup_methods records the provider');
    if (sharesEmail(provider)) {
      t.equal(profile.email, email);
      t.equal(profile.email_verified, true, 'the provider attested the email');
    } else {
      t.notOk(profile.email, 'no email was shared');
      t.equal(profile.preferred_username, 'ada');
    }

    const again = await new Browser().follow(latchkey.loginUrl(provider), APP_CALLBACK);
    const second = await profileOf(delivered(landing(again)).get('access_token'));
    t.equal(second.id, profile.id, 'a second login signs in to the same account');
  });
}

t.test('Microsoft: a token naming another tenant is refused and creates nothing', async (t) => {
  idp.nextAccount = {
    sub: 'ms-sub-2',
    claims: { tid: OTHER_TENANT, email: 'eve@fabrikam.example', email_verified: true },
  };
  const params = delivered(landing(await new Browser().follow(latchkey.loginUrl('microsoft'), APP_CALLBACK)));
  t.equal(params.get('error'), 'server_error');
  t.match(params.get('error_description'), /tenant/);
  t.notOk(params.get('access_token'));
  const users = (await latchkey.admin('users', { query: 'eve@fabrikam.example' })) as { users: unknown[] };
  t.equal(users.users.length, 0);
});
