/**
 * A bearer `profile` is answered without a promise of its own when the authenticator's session
 * and the users service's cache both have what it needs (the accounts plugin's
 * cachedCurrentUser). That shortcut must never answer from a copy older than a write of this process, nor for a
 * session that has ended or a user that is gone.
 */
import t from 'tap';
import { bootAccounts, call, PASSWORD, signup, type Auth } from './helpers.js';

const tk = await bootAccounts();
t.teardown(() => tk.close());
const k = tk.kernel;
const asAdmin = { admin: true };

type Profile = { id: string; email: string; given_name: string | null; nickname: string | null };
const profileOf = (token: string) => call<Profile>(k, 'profile', undefined, { bearer: token });

t.test('the cache holds the user once a profile read it, and the answer is that user', async (t) => {
  const { user, access_token } = await signup(k, 'cached@example.com');
  const first = await profileOf(access_token);
  t.equal(first.email, 'cached@example.com');
  const cached = k.service('users').cachedById(user.id);
  t.ok(cached, 'findById filled the cache');
  t.equal(cached?.email, 'cached@example.com');
  t.same(await profileOf(access_token), first, 'the answer from the cache is the same profile');
  t.equal(k.service('users').cachedById('no-such-user'), undefined, 'an id never read is not there');
});

t.test("the user's own change is in the next profile", async (t) => {
  const { access_token } = await signup(k, 'own-change@example.com');
  await profileOf(access_token);
  await call(k, 'update_profile', { given_name: 'Ada' }, { bearer: access_token });
  t.equal((await profileOf(access_token)).given_name, 'Ada');
});

t.test("an admin's change is in the user's next profile", async (t) => {
  const { user, access_token } = await signup(k, 'admin-change@example.com');
  await profileOf(access_token);
  await call(k, '_update_user', { id: user.id, nickname: 'set-by-admin' }, asAdmin);
  t.equal((await profileOf(access_token)).nickname, 'set-by-admin');
});

t.test('a cached user does not keep an ended session alive', async (t) => {
  const { access_token } = await signup(k, 'logged-out@example.com');
  await profileOf(access_token);
  await call(k, 'logout', undefined, { bearer: access_token });
  await t.rejects(profileOf(access_token), { code: 'unauthenticated' });
});

t.test('a cached user does not outlive an admin revoke or a delete', async (t) => {
  const { user, access_token } = await signup(k, 'revoked@example.com');
  await profileOf(access_token);
  await call(k, '_revoke_access', { user_id: user.id }, asAdmin);
  await t.rejects(profileOf(access_token), { code: 'unauthenticated' }, 'revoked');

  const other = await call<Auth>(k, 'signup', {
    email: 'deleted@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  await profileOf(other.access_token);
  await call(k, '_delete_user', { id: other.user.id }, asAdmin);
  t.equal(k.service('users').cachedById(other.user.id), undefined, 'the delete left nothing in the cache');
  await t.rejects(profileOf(other.access_token), { code: 'unauthenticated' }, 'deleted');
});
