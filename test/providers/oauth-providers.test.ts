/**
 * The providers that are not OpenID Connect (GitHub, Discord, Facebook, X, Twitch) log users in
 * through the real routes against provider-shaped local servers (token endpoint and APIs),
 * pointed at with each provider's endpoint flags.
 */
import t from 'tap';
import { Browser, delivered, landing } from './helpers/browser.js';
import { APP_CALLBACK, startLatchkey, type Latchkey } from './helpers/latchkey.js';
import { startOAuthPeer, type ApiRequest, type OAuthPeer, type OAuthPeerOptions } from './helpers/oauth-peer.js';

/** The account each provider reports; the tests change it between logins. */
const accounts = {
  github: {
    user: { id: 4242, login: 'octo', name: 'Octo Cat', avatar_url: 'https://avatars.example/octo.png' },
    emails: [
      { email: 'octo-old@example.com', primary: false, verified: true },
      { email: 'octo@example.com', primary: true, verified: true },
    ] as { email: string; primary: boolean; verified: boolean }[],
  },
  discord: {
    id: '80351110224678912',
    username: 'nelly',
    global_name: 'Nelly',
    email: 'nelly@example.com',
    verified: true,
    avatar: '8342729096ea3675442027381ff50dfe',
  },
  facebook: { id: '10158', name: 'Fay Book', first_name: 'Fay', last_name: 'Book', email: 'fay@example.com' },
  twitter: {
    id: '2244994945',
    name: 'X Dev',
    username: 'XDevelopers',
    confirmed_email: 'xdev@example.com' as string | undefined,
  },
  twitch: { id: '141981764', login: 'twitchdev', display_name: 'TwitchDev', email: 'twitchdev@example.com' },
};

const peers: Record<string, OAuthPeer> = {};
const spec: Record<
  string,
  Omit<OAuthPeerOptions, 'clientId' | 'clientSecret'> & { endpoints: Record<string, string> }
> = {
  github: {
    tokenAuth: 'post',
    endpoints: { user: '/user', emails: '/user/emails' },
    api: { '/user': () => accounts.github.user, '/user/emails': () => accounts.github.emails },
  },
  discord: {
    tokenAuth: 'post',
    endpoints: { user: '/api/users/@me' },
    api: { '/api/users/@me': () => accounts.discord },
  },
  facebook: {
    tokenAuth: 'post',
    endpoints: { me: '/v19.0/me' },
    api: {
      '/v19.0/me': (req: ApiRequest) =>
        req.url.searchParams.get('fields')?.includes('email')
          ? { ...accounts.facebook, picture: { data: { url: 'https://graph.example/fay.jpg' } } }
          : { status: 400, body: { error: { message: 'fields missing' } } },
    },
  },
  twitter: {
    tokenAuth: 'basic',
    requirePkce: true,
    endpoints: { me: '/2/users/me' },
    api: {
      '/2/users/me': (req: ApiRequest) => {
        const { confirmed_email, ...rest } = accounts.twitter;
        const asked = req.url.searchParams.get('user.fields')?.split(',') ?? [];
        return {
          data: { ...rest, ...(asked.includes('confirmed_email') && confirmed_email ? { confirmed_email } : {}) },
        };
      },
    },
  },
  twitch: {
    tokenAuth: 'post',
    endpoints: { users: '/helix/users' },
    api: {
      '/helix/users': (req: ApiRequest) =>
        req.headers['client-id'] === 'twitch-client'
          ? { data: [accounts.twitch] }
          : { status: 401, body: { message: 'Client-Id header required' } },
    },
  },
};

const flags: Record<string, string> = {};
for (const [name, s] of Object.entries(spec)) {
  const peer = await startOAuthPeer({ ...s, clientId: `${name}-client`, clientSecret: `${name}-secret` });
  t.teardown(() => peer.close());
  peers[name] = peer;
  flags[`${name}-client-id`] = `${name}-client`;
  flags[`${name}-client-secret`] = `${name}-secret`;
  flags[`${name}-authorization-url`] = `${peer.url}/authorize`;
  flags[`${name}-token-url`] = `${peer.url}/token`;
  for (const [key, path] of Object.entries(s.endpoints)) flags[`${name}-${key}-url`] = `${peer.url}${path}`;
}
const latchkey: Latchkey = await startLatchkey(flags);
t.teardown(() => latchkey.close());

async function login(provider: string): Promise<URLSearchParams> {
  const hops = await new Browser().follow(latchkey.loginUrl(provider), APP_CALLBACK);
  return delivered(landing(hops));
}

async function profileOf(params: URLSearchParams): Promise<Record<string, unknown>> {
  const token = params.get('access_token');
  if (!token) throw new Error(`no token: ${params.toString()}`);
  const res = await fetch(`${latchkey.url}/v1/profile`, { headers: { authorization: `Bearer ${token}` } });
  return (await res.json()) as Record<string, unknown>;
}

t.test('GitHub: the verified primary email names the account; a second login finds it', async (t) => {
  const profile = await profileOf(await login('github'));
  t.equal(profile.email, 'octo@example.com', 'the primary address, not the other verified one');
  t.equal(profile.email_verified, true);
  t.equal(profile.nickname, 'octo');
  t.equal(profile.signup_methods, 'github');
  const scope = peers.github.authorizations.at(-1)!.get('scope');
  t.equal(scope, 'read:user user:email', 'the default scopes are asked for');
  t.equal(peers.github.authorizations.at(-1)!.get('code_challenge_method'), 'S256', 'with PKCE');
  const again = await profileOf(await login('github'));
  t.equal(again.id, profile.id);
});

t.test('GitHub: an unverified primary email is not used', async (t) => {
  accounts.github.user = { ...accounts.github.user, id: 777, login: 'unverified', name: 'x'.repeat(5000) };
  accounts.github.emails = [
    { email: 'someone-else@example.com', primary: true, verified: false },
    { email: 'secondary@example.com', primary: false, verified: true },
  ];
  const profile = await profileOf(await login('github'));
  t.notOk(profile.email, 'neither the unverified primary nor a secondary address becomes the email');
  t.equal(profile.nickname, 'unverified');
  t.notOk(profile.given_name, 'a name longer than the user record holds is left out, and the login succeeds');
});

t.test('Discord: a verified email is taken as verified', async (t) => {
  const profile = await profileOf(await login('discord'));
  t.equal(profile.email, 'nelly@example.com');
  t.equal(profile.email_verified, true);
  t.equal(profile.signup_methods, 'discord');
  t.match(profile.picture, /^https:\/\/cdn\.discordapp\.com\/avatars\/80351110224678912\//);
});

t.test('Facebook: the Graph address names a new account but is not verified', async (t) => {
  const profile = await profileOf(await login('facebook'));
  t.equal(profile.email, 'fay@example.com');
  t.equal(profile.email_verified, false);
  t.equal(profile.given_name, 'Fay');
  t.equal(profile.family_name, 'Book');
  t.equal(peers.facebook.authorizations.at(-1)!.get('scope'), 'public_profile,email', 'scopes joined by commas');
});

t.test('X: PKCE and HTTP Basic at the token endpoint; a confirmed email or none', async (t) => {
  const profile = await profileOf(await login('twitter'));
  t.equal(profile.email, 'xdev@example.com');
  t.equal(profile.email_verified, true);
  const token = peers.twitter.tokenRequests.at(-1)!;
  t.ok(token.get('code_verifier'), 'the verifier is sent');
  t.notOk(token.get('client_secret'), 'the secret is not in the body');

  accounts.twitter = { id: '99', name: 'No Mail', username: 'nomail', confirmed_email: undefined };
  const other = await profileOf(await login('twitter'));
  t.notOk(other.email, 'without a confirmed email the account has none');
  t.equal(other.preferred_username, 'nomail');
});

t.test('Twitch: Helix is called with the Client-Id header; the email is not verified', async (t) => {
  const profile = await profileOf(await login('twitch'));
  t.equal(profile.email, 'twitchdev@example.com');
  t.equal(profile.email_verified, false);
  t.equal(profile.nickname, 'twitchdev');
});
