/**
 * Two admins change one user's roles at once, and the user signs in between: `update_user` must judge whether the roles changed against the roles the user held
 * when its own write landed, not against the copy it read first. Otherwise the second admin's
 * "back to [user]" looked like no change next to its early read of [user], and the session granted
 * `editor` in between kept a role both admins had left the user without.
 */
import t from 'tap';
import { holdNext } from '../../helpers/hold.js';
import { bootAccounts, call, PASSWORD, signup, type Auth } from '../accounts/helpers.js';

const tk = await bootAccounts({ roles: 'user,editor' });
t.teardown(() => tk.close());
const k = tk.kernel;
const asAdmin = { admin: true };

t.test(
  'an update that read the user before another admin granted a role still ends the session granted it',
  async (t) => {
    const { user } = await signup(k, 'roles-race@example.com');
    t.same(user.roles, ['user']);
    // Admin A sets [user]; its first read of the user is held open.
    const hold = holdNext(k.service('users'), 'findById');
    const first = call<{ roles: string[] }>(k, '_update_user', { id: user.id, roles: ['user'] }, asAdmin);
    await hold.reached;
    // Admin B grants editor meanwhile, and the user signs in as editor.
    t.same(
      (await call<{ roles: string[] }>(k, '_update_user', { id: user.id, roles: ['user', 'editor'] }, asAdmin)).roles,
      ['user', 'editor'],
    );
    // B's grant ended the user's sessions. A sign-in that read the user in that same millisecond is
    // refused (sessions service, create's readAt), which would fail this test now and then: the
    // login starts after it, as in test/plugins/sessions/ended-meanwhile.test.ts.
    await new Promise((r) => setTimeout(r, 2));
    const login = await call<Auth>(k, 'login', { email: 'roles-race@example.com', password: PASSWORD });
    t.same(login.user.roles, ['user', 'editor'], 'signed in as editor');
    hold.release();
    t.same((await first).roles, ['user'], "A's write lands last: the user is back to [user]");
    await t.rejects(
      call(k, 'profile', undefined, { bearer: login.access_token }),
      { code: 'unauthenticated' },
      'the editor session ended with it',
    );
  },
);

t.test('the same roles given again under the same race keep the sessions', async (t) => {
  const { user } = await signup(k, 'roles-same@example.com');
  const hold = holdNext(k.service('users'), 'findById');
  const first = call(k, '_update_user', { id: user.id, roles: ['user'] }, asAdmin);
  await hold.reached;
  const login = await call<Auth>(k, 'login', { email: 'roles-same@example.com', password: PASSWORD });
  hold.release();
  await first;
  t.equal(
    (await call<{ email: string }>(k, 'profile', undefined, { bearer: login.access_token })).email,
    'roles-same@example.com',
    'nothing changed, the session lives',
  );
});
