/**
 * What the kit refuses, once for every provider (it is one code path): a callback without the
 * browser's state cookie or with another state, a replayed callback, ID tokens with a wrong
 * audience, issuer, nonce or signature, an unverified email that matches an existing account,
 * the provider's error answer, a redirect target outside the allow list, a revoked user, and a
 * new user when signup is off. Each ends in an error page or an error redirect and creates nothing.
 * The sign-in gates (MFA) apply to a social login as to any other. Last, a failed exchange is
 * logged by the provider, the step and an error code, never with the code, the client secret or
 * a token the provider issued.
 * The generic OpenID Connect provider runs against a local issuer whose answers can be bent.
 */
import t from 'tap';
import type { Logger } from '../../core/logger.js';
import type { RawRoute } from '../../core/plugin.js';
import { socialPlugin } from '../../plugins/social/index.js';
import { genericOidcProvider } from '../../providers/index.js';
import { bootTestKernel, testContext } from '../helpers/kernel.js';
import { oauthPlugins } from '../plugins/oauth-server/setup.js';
import { Browser, delivered, landing } from './helpers/browser.js';
import { startJoseIssuer, type Tamper } from './helpers/jose-issuer.js';
import { allUsers, APP_CALLBACK, secondServerPlugins, startLatchkey, type Latchkey } from './helpers/latchkey.js';
import { freePort } from '../helpers/ports.js';

const SECRET = 'generic-secret-0123456789';
const idp = await startJoseIssuer({ clientId: 'generic-client', client: { secret: SECRET } });
t.teardown(() => idp.close());
const flagsFor = (extra: Record<string, string | boolean> = {}) => ({
  'oidc-client-id': 'generic-client',
  'oidc-client-secret': SECRET,
  'oidc-issuer-url': idp.issuer,
  ...extra,
});
const latchkey = await startLatchkey(flagsFor());
t.teardown(() => latchkey.close());

const callbackOf = (l: Latchkey) => `${l.url}/oauth_callback/oidc`;

/** Runs the login up to the provider's redirect back, without delivering it. */
async function toCallback(browser: Browser, l: Latchkey = latchkey, params: Record<string, string> = {}) {
  const hops = await browser.follow(l.loginUrl('oidc', params), callbackOf(l));
  return landing(hops).toString();
}

async function finish(browser: Browser, callback: string) {
  return browser.follow(callback, APP_CALLBACK);
}

let nextSub = 1;
function account(email: string, verified = true) {
  idp.nextAccount = { sub: `refusal-sub-${nextSub++}`, claims: { email, email_verified: verified } };
}

async function userCount(l: Latchkey = latchkey): Promise<number> {
  return (await allUsers(l)).length;
}

t.test('a callback in a browser without the state cookie is refused with a page', async (t) => {
  account('cookie-less@example.com');
  const before = await userCount();
  const callback = await toCallback(new Browser());
  const hops = await finish(new Browser(), callback);
  t.equal(hops.at(-1)!.status, 400);
  t.match(hops.at(-1)!.body, /invalid_state/);
  t.match(hops.at(-1)!.body, /started in another browser/);
  t.equal(await userCount(), before, 'no user was created');
});

t.test('a callback whose state differs from the cookie is refused', async (t) => {
  account('state-swap@example.com');
  const before = await userCount();
  const browser = new Browser();
  const callback = new URL(await toCallback(browser));
  callback.searchParams.set('state', 'forged-state');
  const hops = await finish(browser, callback.toString());
  t.equal(hops.at(-1)!.status, 400);
  t.match(hops.at(-1)!.body, /invalid_state/);
  t.equal(await userCount(), before);
});

t.test('a replayed callback finds its login already used', async (t) => {
  account('replay@example.com');
  const browser = new Browser();
  const callback = await toCallback(browser);
  const cookie = browser.cookiesOf(latchkey.url).get('latchkey_social_state')!;
  t.ok(delivered(landing(await finish(browser, callback))).get('access_token'), 'the first delivery signs in');
  t.notOk(browser.cookiesOf(latchkey.url).has('latchkey_social_state'), 'the state cookie is cleared');
  browser.cookiesOf(latchkey.url).set('latchkey_social_state', cookie);
  const before = await userCount();
  const again = await finish(browser, callback);
  t.equal(again.at(-1)!.status, 400);
  t.match(again.at(-1)!.body, /expired or was already completed/);
  t.equal(await userCount(), before);
});

for (const tamper of ['wrong-audience', 'wrong-issuer', 'wrong-nonce', 'bad-signature'] as Tamper[]) {
  t.test(`an ID token with a ${tamper.replace('-', ' ')} is refused`, async (t) => {
    account(`${tamper}@example.com`);
    idp.tamperNext = tamper;
    const before = await userCount();
    const params = delivered(landing(await new Browser().follow(latchkey.loginUrl('oidc'), APP_CALLBACK)));
    t.equal(params.get('error'), 'server_error');
    t.equal(params.get('error_description'), "the identity provider's answer could not be verified");
    t.equal(params.get('state'), 'app-state');
    t.notOk(params.get('access_token'));
    t.equal(await userCount(), before, 'no user was created');
  });
}

t.test('an unverified email matching an existing account does not sign in to it', async (t) => {
  const signup = await fetch(`${latchkey.url}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: latchkey.url },
    body: JSON.stringify({ email: 'owner@example.com', password: 'Owner-pass-1', confirm_password: 'Owner-pass-1' }),
  });
  t.equal(signup.status, 200);
  account('owner@example.com', false);
  const before = await userCount();
  const params = delivered(landing(await new Browser().follow(latchkey.loginUrl('oidc'), APP_CALLBACK)));
  t.equal(params.get('error'), 'access_denied');
  t.match(params.get('error_description'), /does not attest the email as verified/);
  t.notOk(params.get('access_token'));
  t.equal(await userCount(), before, 'no second account');
  const owner = (await latchkey.admin('user', { email: 'owner@example.com' })) as Record<string, unknown>;
  t.equal(owner.signup_methods, 'basic_auth', 'the account was not linked');

  account('owner@example.com', true);
  const unproven = delivered(landing(await new Browser().follow(latchkey.loginUrl('oidc'), APP_CALLBACK)));
  t.equal(unproven.get('error'), 'access_denied', 'nor does a verified one while the account never verified it');
  t.match(unproven.get('error_description'), /its email was never verified/);
  t.equal(await userCount(), before);

  await latchkey.admin('update_user', { id: owner.id, email_verified: true });
  account('owner@example.com', true);
  const linked = delivered(landing(await new Browser().follow(latchkey.loginUrl('oidc'), APP_CALLBACK)));
  t.ok(linked.get('access_token'), 'a verified email links an account that verified it too');
  const after = (await latchkey.admin('user', { email: 'owner@example.com' })) as Record<string, unknown>;
  t.equal(after.signup_methods, 'basic_auth,oidc', 'signup_methods records the provider');
});

t.test("the provider's error answer goes back to the application with the state", async (t) => {
  idp.denyNext = 'access_denied';
  const before = await userCount();
  const params = delivered(landing(await new Browser().follow(latchkey.loginUrl('oidc'), APP_CALLBACK)));
  t.equal(params.get('error'), 'access_denied');
  t.equal(params.get('state'), 'app-state');
  t.equal(await userCount(), before);

  idp.denyNext = 'something_odd<script>';
  const odd = delivered(landing(await new Browser().follow(latchkey.loginUrl('oidc'), APP_CALLBACK)));
  t.equal(odd.get('error'), 'access_denied', 'an unknown provider error code is not passed on');
});

t.test('a redirect target outside the allow list gets a page, not a redirect', async (t) => {
  for (const target of ['https://evil.example/cb', 'javascript:alert(1)', 'not a url']) {
    const res = await fetch(
      `${latchkey.url}/oauth_login/oidc?${new URLSearchParams({ redirect_uri: target, state: 's' })}`,
      {
        redirect: 'manual',
      },
    );
    t.equal(res.status, 400, target);
    t.equal(res.headers.get('location'), null);
    t.match(await res.text(), /not an allowed redirect target/);
  }
  const missing = await fetch(`${latchkey.url}/oauth_login/oidc?state=s`, { redirect: 'manual' });
  t.equal(missing.status, 400);
  t.match(await missing.text(), /redirect_uri \(or redirectURL\) is required/);
  const legacy = await fetch(
    `${latchkey.url}/oauth_login/oidc?${new URLSearchParams({ redirectURL: APP_CALLBACK, state: 's' })}`,
    {
      redirect: 'manual',
    },
  );
  t.equal(legacy.status, 302, 'redirectURL is accepted as the reference names it');
});

t.test('a missing state or an unknown role goes back as invalid_request', async (t) => {
  const noState = await fetch(
    `${latchkey.url}/oauth_login/oidc?${new URLSearchParams({ redirect_uri: APP_CALLBACK })}`,
    {
      redirect: 'manual',
    },
  );
  const back = delivered(new URL(noState.headers.get('location')!));
  t.equal(back.get('error'), 'invalid_request');
  t.equal(back.get('error_description'), 'state is required');
  const role = await fetch(latchkey.loginUrl('oidc', { roles: 'superuser' }), { redirect: 'manual' });
  t.equal(delivered(new URL(role.headers.get('location')!)).get('error_description'), 'invalid roles');
});

t.test('a revoked user is refused', async (t) => {
  account('revoked@example.com');
  const sub = idp.nextAccount.sub;
  const first = delivered(landing(await new Browser().follow(latchkey.loginUrl('oidc'), APP_CALLBACK)));
  t.ok(first.get('access_token'));
  const user = (await latchkey.admin('user', { email: 'revoked@example.com' })) as { id: string };
  await latchkey.admin('revoke_access', { user_id: user.id });
  idp.nextAccount = { sub, claims: { email: 'revoked@example.com', email_verified: true } };
  const params = delivered(landing(await new Browser().follow(latchkey.loginUrl('oidc'), APP_CALLBACK)));
  t.equal(params.get('error'), 'access_denied');
  t.equal(params.get('error_description'), 'user access has been revoked');
});

t.test('no secret, code or token appears in an error answer', async (t) => {
  account('leak-check@example.com');
  idp.tamperNext = 'bad-signature';
  const browser = new Browser();
  const callback = await toCallback(browser);
  const code = new URL(callback).searchParams.get('code')!;
  const back = landing(await finish(browser, callback));
  t.equal(delivered(back).get('error'), 'server_error');
  t.notOk(back.toString().includes(code), 'the code is not passed on');
  t.notOk(back.toString().includes(SECRET), 'nor the client secret');
});

t.test('with --enable-signup false a new user is refused; an unreachable issuer is reported', async (t) => {
  const gone = await freePort();
  const closed = await startLatchkey(
    flagsFor({
      'enable-signup': false,
      'google-client-id': 'g',
      'google-client-secret': 'g-secret',
      'google-issuer-url': `http://127.0.0.1:${gone}`,
    }),
    secondServerPlugins,
  );
  t.teardown(() => closed.close());
  account('newcomer@example.com');
  const params = delivered(landing(await new Browser().follow(closed.loginUrl('oidc'), APP_CALLBACK)));
  t.equal(params.get('error'), 'access_denied');
  t.equal(params.get('error_description'), 'signup is disabled for this instance');
  t.equal(await userCount(closed), 0);

  const down = await fetch(closed.loginUrl('google'), { redirect: 'manual' });
  const back = delivered(new URL(down.headers.get('location')!));
  t.equal(
    back.get('error'),
    'temporarily_unavailable',
    'a provider whose discovery fails is reported to the application',
  );
  t.equal(back.get('state'), 'app-state');
});

t.test('the sign-in gates apply: under --enforce-mfa the login is withheld with the gate flags', async (t) => {
  const gated = await startLatchkey(flagsFor({ 'enforce-mfa': true }), secondServerPlugins);
  t.teardown(() => gated.close());
  account('gated@example.com');
  const browser = new Browser();
  const hops = await browser.follow(gated.loginUrl('oidc'), APP_CALLBACK);
  const params = delivered(landing(hops));
  t.notOk(params.get('access_token'), 'no tokens before the second factor');
  t.equal(params.get('state'), 'app-state');
  t.ok(
    [...params.keys()].some((k) => k.startsWith('should_') && params.get(k) === 'true'),
    `a gate flag says what comes next: ${params.toString()}`,
  );
  t.ok(browser.cookiesOf(gated.url).has('mfa'), 'the gate kept the attempt in its cookie');
});

const records: unknown[] = [];
const keep = (obj: unknown, msg?: string) => void records.push({ obj, msg });
const logger: Logger = { debug: keep, info: keep, warn: keep, error: keep };

// The kernel alone, with a logger that keeps every record; its routes are called as the HTTP
// transport calls them.
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
    'oidc-client-id': 'generic-client',
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
  const issuedBefore = idp.issued.length;
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
  const issued = idp.issued.slice(issuedBefore);
  t.equal(issued.length, 2, 'the provider issued an access and an ID token');

  const failure = records.find((r) => (r as { msg?: string }).msg === 'social login failed') as
    { obj: Record<string, unknown> } | undefined;
  t.ok(failure, 'the failure is logged');
  t.same(Object.keys(failure?.obj ?? {}).sort(), ['provider', 'reason', 'step']);
  t.equal(failure?.obj.provider, 'oidc');
  t.match(failure?.obj.reason, /^[A-Za-z0-9_.:-]+$/, 'a code, not a message');
  const text = JSON.stringify(records);
  for (const [what, value] of [['code', code], ['client secret', SECRET], ...issued.map((v) => ['token', v])])
    t.notOk(text.includes(value), `the log holds no ${what}`);
});
