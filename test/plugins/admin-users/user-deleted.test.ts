/**
 * The `user.deleted` hook has subscribers: whoever deletes a user (the admin operation or another
 * plugin calling the users service), the sessions plugin ends the user's sessions and the tokens
 * plugin drops their refresh records, so no token of the user works afterwards.
 */
import t from 'tap';
import { bootAccounts, call, PASSWORD, type Auth } from '../accounts/helpers.js';

const tk = await bootAccounts();
const { kernel } = tk;
t.teardown(() => tk.close());

async function signupWithRefresh(email: string): Promise<Auth> {
  const auth = await call<Auth>(kernel, 'signup', {
    email,
    password: PASSWORD,
    confirm_password: PASSWORD,
    scope: ['openid', 'offline_access'],
  });
  // A second session of the same user (another device).
  await call(kernel, 'login', { email, password: PASSWORD, scope: ['openid', 'offline_access'] });
  return auth;
}

const keysOf = async (userId: string) => ({
  sessions: await kernel.memory.keys(`session:${userId}:`),
  refresh: await kernel.memory.keys(`refresh:${userId}:`),
});

for (const [how, remove] of [
  ['the users service (any plugin)', (id: string) => kernel.service('users').delete(id)],
  ['the admin delete_user operation', (id: string) => call(kernel, '_delete_user', { id }, { admin: true })],
] as const) {
  t.test(`deleting a user through ${how} ends their sessions and refresh tokens`, async (t) => {
    const email = `gone-${how.length}@example.com`;
    const auth = await signupWithRefresh(email);
    const before = await keysOf(auth.user.id);
    t.equal(before.sessions.length, 2, 'two sessions before');
    t.equal(before.refresh.length, 2, 'two refresh records before');

    await remove(auth.user.id);

    t.same(
      await keysOf(auth.user.id),
      { sessions: [], refresh: [] },
      'nothing of the user is left in the memory store',
    );
    const v = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
      token_type: 'access_token',
      token: auth.access_token,
    });
    t.equal(v.is_valid, false, 'the access token fails on the next request');
    const r = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
      token_type: 'refresh_token',
      token: auth.refresh_token,
    });
    t.equal(r.is_valid, false, 'the refresh token is dead');
  });
}

t.test('a verified access token stops working on the next request after logout (verification cache)', async (t) => {
  const auth = await call<Auth>(kernel, 'signup', {
    email: 'cache@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  for (let i = 0; i < 3; i++) {
    const v = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
      token_type: 'access_token',
      token: auth.access_token,
    });
    t.equal(v.is_valid, true, `valid on use ${i + 1}`);
  }
  await call(kernel, 'logout', undefined, { bearer: auth.access_token });
  const v = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
    token_type: 'access_token',
    token: auth.access_token,
  });
  t.equal(v.is_valid, false, 'invalid right after logout');
  await t.rejects(call(kernel, 'profile', undefined, { bearer: auth.access_token }), { code: 'unauthenticated' });
  // A token altered by one character never matches the cached text and fails its signature.
  const tampered = auth.access_token.slice(0, -2) + (auth.access_token.endsWith('AA') ? 'BB' : 'AA');
  const bad = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
    token_type: 'access_token',
    token: tampered,
  });
  t.equal(bad.is_valid, false);
});

t.test('a sign-in racing delete_user leaves no session of the deleted user', async (t) => {
  const auth = await call<Auth>(kernel, 'signup', {
    email: 'race@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  // A sign-in that starts while the deletion runs its hook: with the hook before the row's
  // deletion, it read the user after the sessions were ended and kept its new session.
  let racing: Promise<unknown> | undefined;
  let armed = true;
  kernel.hooks.on('user.deleted', async ({ user }) => {
    if (!armed || user.id !== auth.user.id) return;
    armed = false;
    // A few milliseconds after the end was marked (a sign-in read within its millisecond counts as before it).
    await new Promise((resolve) => setTimeout(resolve, 5));
    racing = call<Auth>(kernel, 'login', { email: 'race@example.com', password: PASSWORD }).then(
      (a) => a,
      (err: { code?: string }) => err.code,
    );
    // Long enough for the sign-in to read the user.
    await new Promise((resolve) => setTimeout(resolve, 20));
  });
  await call(kernel, '_delete_user', { id: auth.user.id }, { admin: true });
  const outcome = await racing;
  t.ok(racing, 'the racing sign-in ran');
  t.same(await keysOf(auth.user.id), { sessions: [], refresh: [] }, 'no session of the deleted user is left');
  if (outcome && typeof outcome === 'object') {
    const v = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
      token_type: 'access_token',
      token: (outcome as Auth).access_token,
    });
    t.equal(v.is_valid, false, "the racing sign-in's token does not work");
  } else {
    t.equal(outcome, 'unauthenticated', 'the racing sign-in is refused');
  }
});

t.test('a hook that vetoes the deletion leaves the user whole, and a retry deletes it', async (t) => {
  const auth = await call<Auth>(kernel, 'signup', {
    email: 'veto@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  let veto = true;
  kernel.hooks.on('user.deleted', async ({ user }) => {
    if (veto && user.id === auth.user.id) throw new Error('not now');
  });
  await t.rejects(call(kernel, '_delete_user', { id: auth.user.id }, { admin: true }));
  t.ok(await kernel.service('users').findById(auth.user.id), 'the user is still there');
  veto = false;
  await call(kernel, '_delete_user', { id: auth.user.id }, { admin: true });
  t.equal(await kernel.service('users').findById(auth.user.id), null, 'the retry deletes it');
  t.same(await keysOf(auth.user.id), { sessions: [], refresh: [] });
});
