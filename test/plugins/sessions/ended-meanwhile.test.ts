/**
 * A session ended while another request of it is running stays ended: a refresh or a `session`
 * call reads the record, a logout deletes it, and the first request must not write its copy
 * back, bringing the session and its old access token back to life. The user
 * lookup inside each request is held open so the logout lands in that gap.
 */
import t, { type Test } from 'tap';
import type { Kernel } from '../../../core/kernel.js';
import { holdNext } from '../../helpers/hold.js';
import { bootAccounts, call, callWithContext, PASSWORD, type Auth } from '../accounts/helpers.js';

const tk = await bootAccounts({ roles: 'user,admin' });
t.teardown(() => tk.close());
const k: Kernel = tk.kernel;

const holdNextUserLookup = () => holdNext(k.service('users'), 'findById');

const profileOf = (token: string) => call<{ email: string }>(k, 'profile', undefined, { bearer: token });

t.test('a refresh that read the session before a logout does not bring it back', async (t) => {
  const auth = await call<Auth>(k, 'signup', {
    email: 'refresh-race@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
    scope: ['openid', 'offline_access'],
  });
  const hold = holdNextUserLookup();
  const refreshing = k
    .service('tokens')
    .refresh(auth.refresh_token!)
    .then(
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
  const erin = await call<Auth & { user: { id: string } }>(k, 'signup', {
    email: 'login-race@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
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
  // A sign-in that read the user in the millisecond the revoke ended the sessions is refused
  // (create's readAt): this one starts after it.
  await new Promise((r) => setTimeout(r, 2));
  const again = await call<Auth>(k, 'login', { email: 'login-race@example.com', password: PASSWORD });
  t.equal(
    (await profileOf(again.access_token)).email,
    'login-race@example.com',
    'a login after access is enabled again works',
  );
});

t.test('without a logout both still work, and a session call ends the old id', async (t) => {
  const auth = await call<Auth>(k, 'login', {
    email: 'refresh-race@example.com',
    password: PASSWORD,
    scope: ['openid', 'offline_access'],
  });
  const refreshed = await k.service('tokens').refresh(auth.refresh_token!);
  t.equal((await profileOf(refreshed.tokens.access_token)).email, 'refresh-race@example.com');
  const rotated = await call<Auth>(k, 'session', {}, { bearer: refreshed.tokens.access_token });
  t.equal((await profileOf(rotated.access_token)).email, 'refresh-race@example.com');
  await t.rejects(profileOf(refreshed.tokens.access_token), { code: 'unauthenticated' }, 'rotation ended the old id');
});

/**
 * Redis ends a user's sessions with SCAN and UNLINK, which can pass the slot of a record stored
 * meanwhile and reach the old record only after it is gone. Here the ending finds nothing at all
 * while a `session` call is between storing its new record and taking the old one: the admin's
 * mark of the moment is all that is left for the rotation to see.
 */
t.test('a session call rotating while every session of the user is ended does not keep the new one', async (t) => {
  const user = await call<Auth>(k, 'signup', {
    email: 'rotate-race@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  const memory = k.memory;
  const setIfAbsent = memory.setIfAbsent.bind(memory);
  const deletePrefix = memory.deletePrefix.bind(memory);
  let revoked: Promise<unknown> | undefined;
  memory.setIfAbsent = async (key, value, ttl) => {
    if (key.startsWith('session-successor:') && revoked === undefined) {
      memory.deletePrefix = async () => 0;
      revoked = call(k, '_update_user', { id: user.user.id, roles: ['admin'] }, { admin: true });
      await revoked;
      memory.deletePrefix = deletePrefix;
    }
    return setIfAbsent(key, value, ttl);
  };
  t.teardown(() => {
    memory.setIfAbsent = setIfAbsent;
    memory.deletePrefix = deletePrefix;
  });
  const answer = await call<Auth>(k, 'session', {}, { bearer: user.access_token }).then(
    () => 'rotated',
    (err: { code?: string }) => err.code,
  );
  t.ok(revoked, 'the role change ran inside the rotation');
  t.equal(answer, 'unauthenticated', 'the session call fails');
  t.same(await k.memory.keys(`session:${user.user.id}:`), [], 'and no session with the old roles is left');
});

/** How a password change is made: with the caller's access token, or with its session cookie. */
const CALLERS = ['token', 'cookie'] as const;
type Caller = (typeof CALLERS)[number];

/** Signs in; answers how to call as the new session (its token, or its cookie). */
async function signIn(
  email: string,
  how: Caller,
  extra: Record<string, unknown> = {},
): Promise<{ bearer?: string; cookies?: Record<string, string> }> {
  const { result, ctx } = await callWithContext(k, 'login', { email, password: PASSWORD, ...extra });
  if (how === 'token') return { bearer: String(result.access_token) };
  return { cookies: { cookie_session: ctx.setCookies.find((c) => c.name === 'cookie_session')!.value } };
}

/** A memory-store call, on keys starting with `prefix`, right after which a race is run. */
interface RacePoint {
  method: 'set' | 'keys' | 'deletePrefix';
  prefix: string;
}

/**
 * Where a password change has ended the user's other sessions and has not yet read the user
 * again: with a token, when sessions.keepOnly lists the others (it has re-dated the kept one);
 * with the cookie, after revokeAll's deletion (before the new session is stored).
 */
const OTHERS_ENDED: Record<Caller, RacePoint> = {
  token: { method: 'keys', prefix: 'session:' },
  cookie: { method: 'deletePrefix', prefix: 'session:' },
};
/** Where sessions.keepOnly has written the sessions-ended mark and not yet re-dated the kept session. */
const MARK_WRITTEN: RacePoint = { method: 'set', prefix: 'sessions-ended:' };

/** Runs `inside` once, right after the store call `point` names; answers whether it ran. */
function raceAt(t: Test, point: RacePoint, inside: () => Promise<unknown>): () => boolean {
  const memory = k.memory;
  let ran = false;
  const hooked = memory as unknown as Record<
    RacePoint['method'],
    (first: string, ...rest: unknown[]) => Promise<unknown>
  >;
  const original = hooked[point.method].bind(memory);
  hooked[point.method] = async (first, ...rest) => {
    const out = await original(first, ...rest);
    if (!ran && first.startsWith(point.prefix)) {
      ran = true;
      await inside();
    }
    return out;
  };
  t.teardown(() => void (hooked[point.method] = original));
  return () => ran;
}

for (const how of CALLERS) {
  t.test(
    `a password change made with the ${how}, racing the admin's revoke of access, leaves no session`,
    async (t) => {
      const email = `pw-revoke-race-${how}@example.com`;
      const user = await call<Auth>(k, 'signup', { email, password: PASSWORD, confirm_password: PASSWORD });
      const caller = await signIn(email, how);
      const ran = raceAt(t, OTHERS_ENDED[how], () =>
        call(k, '_revoke_access', { user_id: user.user.id }, { admin: true }),
      );
      await call(
        k,
        'update_profile',
        { old_password: PASSWORD, new_password: 'Other-456', confirm_new_password: 'Other-456' },
        caller,
      );
      t.ok(ran(), 'the revoke ran inside the password change');
      t.same(await k.memory.keys(`session:${user.user.id}:`), [], 'no session is left');
    },
  );

  t.test(
    `a password change made with the ${how}, racing the removal of a role, keeps no session with that role`,
    async (t) => {
      const email = `pw-roles-race-${how}@example.com`;
      const user = await call<Auth>(k, 'signup', { email, password: PASSWORD, confirm_password: PASSWORD });
      await call(k, '_update_user', { id: user.user.id, roles: ['user', 'admin'] }, { admin: true });
      // A sign-in that read the user in the millisecond the role change ended the sessions is
      // refused (sessions service, create's readAt): the login below must start after it.
      await new Promise((r) => setTimeout(r, 2));
      const both = await signIn(email, how, { roles: ['user', 'admin'] });
      const ran = raceAt(t, OTHERS_ENDED[how], () =>
        call(k, '_update_user', { id: user.user.id, roles: ['user'] }, { admin: true }),
      );
      await call(
        k,
        'update_profile',
        { old_password: PASSWORD, new_password: 'Other-456', confirm_new_password: 'Other-456' },
        both,
      );
      t.ok(ran(), 'the role change ran inside the password change');
      t.same(await k.memory.keys(`session:${user.user.id}:`), [], 'no session is left');
    },
  );
}

// A logout landing before the kept session is re-dated must stand (keepOnly writes over a live
// record only); one landing after ends the re-dated record.
for (const [when, point] of [
  ['before', MARK_WRITTEN],
  ['after', OTHERS_ENDED.token],
] as const) {
  t.test(
    `a logout landing ${when} a token's password change re-dates its session does not bring it back`,
    async (t) => {
      const email = `pw-logout-race-${when}@example.com`;
      const user = await call<Auth>(k, 'signup', { email, password: PASSWORD, confirm_password: PASSWORD });
      const caller = await signIn(email, 'token');
      const ran = raceAt(t, point, () => call(k, 'logout', undefined, caller));
      await call(
        k,
        'update_profile',
        { old_password: PASSWORD, new_password: 'Other-456', confirm_new_password: 'Other-456' },
        caller,
      );
      t.ok(ran(), 'the logout ran inside the password change');
      t.same(await k.memory.keys(`session:${user.user.id}:`), [], 'no session is left');
      await t.rejects(profileOf(caller.bearer!), { code: 'unauthenticated' }, 'the logged-out token stays dead');
    },
  );
}
