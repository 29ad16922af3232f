/**
 * A session (its cookie) lasts 24 hours, while a refresh token lives 30 days. A login
 * with offline_access keeps the session record alive for its refresh family; the cookie must
 * still stop at 24 hours. The clock is moved forward by the test (helpers.ts bootAccountsWithClock).
 */
import t from 'tap';
import type { Kernel } from '../../../core/kernel.js';
import { testContext } from '../../helpers/kernel.js';
import { bootAccountsWithClock, call, callWithContext, PASSWORD, signup, type Auth } from './helpers.js';

const { kernel, advance, close } = await bootAccountsWithClock();
t.teardown(close);

const HOUR = 60 * 60 * 1000;

async function loginCookie(k: Kernel, email: string, scope?: string[]): Promise<{ cookie: string; auth: Auth }> {
  const { result, ctx } = await callWithContext(k, 'login', { email, password: PASSWORD, ...(scope ? { scope } : {}) });
  const cookie = ctx.setCookies.find((c) => c.name === 'cookie_session')!.value;
  return { cookie, auth: result as unknown as Auth };
}

const profileWith = (cookie: string) =>
  call<{ email: string }>(kernel, 'profile', undefined, { cookies: { cookie_session: cookie } });

t.test(
  'the session cookie stops after 24 hours, with or without offline_access; the refresh token goes on',
  async (t) => {
    await signup(kernel, 'plain@example.com');
    await signup(kernel, 'offline@example.com');
    const plain = await loginCookie(kernel, 'plain@example.com');
    const offline = await loginCookie(kernel, 'offline@example.com', ['openid', 'offline_access']);
    t.ok(offline.auth.refresh_token, 'a refresh token');
    advance(23 * HOUR);
    t.equal((await profileWith(plain.cookie)).email, 'plain@example.com', 'plain cookie at 23 h');
    t.equal((await profileWith(offline.cookie)).email, 'offline@example.com', 'offline_access cookie at 23 h');
    advance(2 * HOUR);
    await t.rejects(profileWith(plain.cookie), { code: 'unauthenticated' }, 'plain cookie at 25 h');
    await t.rejects(profileWith(offline.cookie), { code: 'unauthenticated' }, 'offline_access cookie at 25 h');
    const validated = await call<{ is_valid: boolean }>(kernel, 'validate_session', { cookie: offline.cookie }).catch(
      (err: { code: string }) => ({ is_valid: false, code: err.code }),
    );
    t.equal(validated.is_valid, false, 'validate_session refuses it too');
    const refreshed = await kernel.service('tokens').refresh(offline.auth.refresh_token!);
    t.ok(refreshed.tokens.access_token, 'the refresh token still works at 25 h');
  },
);

t.test('a cookie re-issued by /session rotation gets 24 hours of its own', async (t) => {
  await signup(kernel, 'rotate@example.com');
  const first = await loginCookie(kernel, 'rotate@example.com');
  advance(20 * HOUR);
  const rotation = testContext(kernel, { headers: {}, cookies: { cookie_session: first.cookie } });
  await kernel.invoke('session', rotation, {});
  const next = rotation.setCookies.find((c) => c.name === 'cookie_session')!.value;
  advance(10 * HOUR);
  await t.rejects(
    profileWith(first.cookie),
    { code: 'unauthenticated' },
    'the old cookie (its session rotated away, and 30 h old)',
  );
  t.equal((await profileWith(next)).email, 'rotate@example.com', 'the new cookie, 10 h old');
});

t.test('an access token answered from the verified-token cache still ends at its exp', async (t) => {
  await signup(kernel, 'cached@example.com');
  const { auth } = await loginCookie(kernel, 'cached@example.com');
  const profile = () => call<{ email: string }>(kernel, 'profile', undefined, { bearer: auth.access_token });
  // Kept from its second use (plugins/tokens/second-sighting.ts); the third is a cache hit.
  for (let i = 0; i < 3; i++) t.equal((await profile()).email, 'cached@example.com');
  advance(29 * 60 * 1000);
  t.equal((await profile()).email, 'cached@example.com', 'at 29 minutes');
  advance(2 * 60 * 1000);
  await t.rejects(profile(), { code: 'unauthenticated' }, 'at 31 minutes, though its session lives on');
});
