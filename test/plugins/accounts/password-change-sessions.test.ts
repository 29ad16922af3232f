/**
 * update_profile with a new password ends every other session of the user and keeps the caller's
 * (plugins/accounts/operations.ts). Made with an access token, the caller's session keeps its id,
 * so its tokens go on working: the operation answers a message and has no new tokens to give (an
 * app using the SDK is not signed out by its own password change). Made with the
 * session cookie, the session is renewed: a new id in a new cookie.
 */
import t from 'tap';
import { testContext } from '../../helpers/kernel.js';
import { bootAccounts, call, callWithContext, PASSWORD, type Auth } from './helpers.js';

const tk = await bootAccounts();
t.teardown(() => tk.close());
const k = tk.kernel;

const NEW_PASSWORD = 'Other-456';
const change = { old_password: PASSWORD, new_password: NEW_PASSWORD, confirm_new_password: NEW_PASSWORD };
const profileWith = (auth: { bearer?: string; cookies?: Record<string, string> }) =>
  call<{ email: string }>(k, 'profile', undefined, auth);
const cookieOf = (ctx: { setCookies: { name: string; value: string }[] }) =>
  ctx.setCookies.find((c) => c.name === 'cookie_session')?.value;

t.test('made with a token: that session and its tokens live on, every other session ends', async (t) => {
  const email = 'pw-token@example.com';
  const mine = await call<Auth>(k, 'signup', {
    email,
    password: PASSWORD,
    confirm_password: PASSWORD,
    scope: ['openid', 'offline_access'],
  });
  const elsewhere = await call<Auth>(k, 'login', { email, password: PASSWORD });
  const browser = await callWithContext(k, 'login', { email, password: PASSWORD });
  const browserCookie = cookieOf(browser.ctx)!;

  const { result, ctx } = await callWithContext(k, 'update_profile', change, mine.access_token);
  t.equal(result.message, 'Profile details updated successfully');
  t.same(ctx.setCookies, [], 'no cookie is set or cleared: the caller came with a token');

  t.equal((await profileWith({ bearer: mine.access_token })).email, email, "the caller's access token still works");
  t.equal((await k.memory.keys(`session:${mine.user.id}:`)).length, 1, 'one session is left');
  await t.rejects(
    profileWith({ bearer: elsewhere.access_token }),
    { code: 'unauthenticated' },
    "another sign-in's token ended",
  );
  await t.rejects(
    profileWith({ cookies: { cookie_session: browserCookie } }),
    { code: 'unauthenticated' },
    "another sign-in's cookie ended",
  );

  const refreshed = await k.service('tokens').refresh(mine.refresh_token!);
  t.ok(refreshed.tokens.access_token, "the kept session's refresh token still refreshes");
  // The kept session is dated after the ending of the others, or its next rotation would end it.
  const rotated = await call<Auth>(k, 'session', {}, { bearer: mine.access_token });
  t.ok(rotated.access_token, 'the kept session still rotates');

  await t.rejects(
    call(k, 'login', { email, password: PASSWORD }),
    { code: 'unauthenticated' },
    'the old password no longer signs in',
  );
  t.ok((await call<Auth>(k, 'login', { email, password: NEW_PASSWORD })).access_token, 'the new one does');
});

t.test('made with the cookie: the session is renewed, a new id in a new cookie', async (t) => {
  const email = 'pw-cookie@example.com';
  await call<Auth>(k, 'signup', { email, password: PASSWORD, confirm_password: PASSWORD });
  const signedIn = await callWithContext(k, 'login', { email, password: PASSWORD });
  const oldCookie = cookieOf(signedIn.ctx)!;
  const oldToken = String(signedIn.result.access_token);

  const ctx = testContext(k, { headers: {}, cookies: { cookie_session: oldCookie } });
  await k.invoke('update_profile', ctx, change);
  const renewed = cookieOf(ctx);
  t.ok(renewed, 'a new session cookie is set');
  // A sealed cookie differs on every sealing; the session it names must differ too.
  const oldSid = (JSON.parse(Buffer.from(oldToken.split('.')[1], 'base64url').toString('utf8')) as { sid: string }).sid;
  const left = await k.memory.keys(`session:${(signedIn.result.user as { id: string }).id}:`);
  t.equal(left.length, 1, 'one session is left');
  t.notOk(left[0].endsWith(`:${oldSid}`), 'under a new id');
  t.equal((await profileWith({ cookies: { cookie_session: renewed! } })).email, email, 'the new cookie works');
  await t.rejects(
    profileWith({ cookies: { cookie_session: oldCookie } }),
    { code: 'unauthenticated' },
    'the old cookie ended',
  );
  await t.rejects(
    profileWith({ bearer: oldToken }),
    { code: 'unauthenticated' },
    "the old session's token ended with it",
  );
});
