/**
 * A session ended while another request of it is running stays ended (review finding, session
 * 8): a refresh or a `session` call read the record, a logout deleted it, and the first request
 * wrote its copy back, bringing the session and its old access token back to life. The user
 * lookup inside each request is held open so the logout lands in that gap.
 */
import t from 'tap';
import type { Kernel } from '../../../core/kernel.js';
import { bootAccounts, call, PASSWORD, type Auth } from '../accounts/helpers.js';

const tk = await bootAccounts();
t.teardown(() => tk.close());
const k: Kernel = tk.kernel;

/** Holds the next call of `method` on `target` open, after it ran, until `release` is called. */
function holdNext<T extends object, K extends keyof T>(target: T, method: K): { reached: Promise<void>; release: () => void } {
  const original = target[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  let release!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const entered = new Promise<void>((r) => (reached = r));
  (target as Record<K, unknown>)[method] = async (...args: unknown[]) => {
    (target as Record<K, unknown>)[method] = original;
    const result = await original.apply(target, args);
    reached();
    await gate;
    return result;
  };
  return { reached: entered, release };
}

const holdNextUserLookup = () => holdNext(k.service('users'), 'findById');

const profileOf = (token: string) => call<{ email: string }>(k, 'profile', undefined, { bearer: token });

t.test('a refresh that read the session before a logout does not bring it back', async (t) => {
  const auth = await call<Auth>(k, 'signup', { email: 'refresh-race@example.com', password: PASSWORD, confirm_password: PASSWORD, scope: ['openid', 'offline_access'] });
  const hold = holdNextUserLookup();
  const refreshing = k.service('tokens').refresh(auth.refresh_token!).then(
    () => 'refreshed',
    (err: { code?: string }) => err.code,
  );
  await hold.reached;
  await call(k, 'logout', undefined, { bearer: auth.access_token });
  hold.release();
  t.equal(await refreshing, 'unauthenticated', 'the refresh fails');
  await t.rejects(profileOf(auth.access_token), { code: 'unauthenticated' }, 'the logged-out access token stays dead');
});

t.test('a session call that read the session before a logout does not rotate it into a live one', async (t) => {
  const auth = await call<Auth>(k, 'login', { email: 'refresh-race@example.com', password: PASSWORD });
  const hold = holdNextUserLookup();
  const rotating = call<Auth>(k, 'session', {}, { bearer: auth.access_token }).then(
    (r) => r,
    (err: { code?: string }) => err.code,
  );
  await hold.reached;
  await call(k, 'logout', undefined, { bearer: auth.access_token });
  hold.release();
  t.equal(await rotating, 'unauthenticated', 'the session call fails');
  await t.rejects(profileOf(auth.access_token), { code: 'unauthenticated' }, 'the old token stays dead');
});

t.test('a login whose password check was running when the admin revoked access gets no live session', async (t) => {
  const erin = await call<Auth & { user: { id: string } }>(k, 'signup', { email: 'login-race@example.com', password: PASSWORD, confirm_password: PASSWORD });
  const hold = holdNext(k.service('users'), 'verifyPassword');
  const login = call<Auth>(k, 'login', { email: 'login-race@example.com', password: PASSWORD }).then(
    (r) => r,
    (err: { code?: string }) => err.code,
  );
  await hold.reached;
  await call(k, '_revoke_access', { user_id: erin.user.id }, { admin: true });
  hold.release();
  t.equal(await login, 'unauthenticated', 'the login fails');
  t.same(await k.memory.keys(`session:${erin.user.id}:`), [], 'and leaves no session behind');
  await call(k, '_enable_access', { user_id: erin.user.id }, { admin: true });
  const again = await call<Auth>(k, 'login', { email: 'login-race@example.com', password: PASSWORD });
  t.equal((await profileOf(again.access_token)).email, 'login-race@example.com', 'a login after access is enabled again works');
});

t.test('without a logout both still work, and a session call ends the old id', async (t) => {
  const auth = await call<Auth>(k, 'login', { email: 'refresh-race@example.com', password: PASSWORD, scope: ['openid', 'offline_access'] });
  const refreshed = await k.service('tokens').refresh(auth.refresh_token!);
  t.equal((await profileOf(refreshed.tokens.access_token)).email, 'refresh-race@example.com');
  const rotated = await call<Auth>(k, 'session', {}, { bearer: refreshed.tokens.access_token });
  t.equal((await profileOf(rotated.access_token)).email, 'refresh-race@example.com');
  await t.rejects(profileOf(refreshed.tokens.access_token), { code: 'unauthenticated' }, 'rotation ended the old id');
});
