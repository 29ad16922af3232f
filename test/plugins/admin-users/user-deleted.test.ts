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
  const auth = await call<Auth>(kernel, 'signup', { email, password: PASSWORD, confirm_password: PASSWORD, scope: ['openid', 'offline_access'] });
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

    t.same(await keysOf(auth.user.id), { sessions: [], refresh: [] }, 'nothing of the user is left in the memory store');
    const v = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', { token_type: 'access_token', token: auth.access_token });
    t.equal(v.is_valid, false, 'the access token fails on the next request');
    const r = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', { token_type: 'refresh_token', token: auth.refresh_token });
    t.equal(r.is_valid, false, 'the refresh token is dead');
  });
}

t.test('a verified access token stops working on the next request after logout (verification cache)', async (t) => {
  const auth = await call<Auth>(kernel, 'signup', { email: 'cache@example.com', password: PASSWORD, confirm_password: PASSWORD });
  for (let i = 0; i < 3; i++) {
    const v = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', { token_type: 'access_token', token: auth.access_token });
    t.equal(v.is_valid, true, `valid on use ${i + 1}`);
  }
  await call(kernel, 'logout', undefined, { bearer: auth.access_token });
  const v = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', { token_type: 'access_token', token: auth.access_token });
  t.equal(v.is_valid, false, 'invalid right after logout');
  await t.rejects(call(kernel, 'profile', undefined, { bearer: auth.access_token }), { code: 'unauthenticated' });
  // A token altered by one character never matches the cached text and fails its signature.
  const tampered = auth.access_token.slice(0, -2) + (auth.access_token.endsWith('AA') ? 'BB' : 'AA');
  const bad = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', { token_type: 'access_token', token: tampered });
  t.equal(bad.is_valid, false);
});
