/**
 * Reuse of a spent refresh token ends its family (RFC 9700 §4.14.2), including a replay that
 * lands right after the legitimate refresh took the token (with the spent mark written after the
 * token was taken, a replay in between would be refused without ending the family). The reuse
 * grace is off here (`--refresh-reuse-grace-seconds 0`), so every repeat is reuse; the grace has
 * its own test (refresh-reuse-grace.test.ts).
 */
import t from 'tap';
import type { MemoryStore } from '../../../core/memory-store.js';
import type { TokensService } from '../../../plugins/tokens/types.js';
import { bootAccounts, call, PASSWORD, signup, type Auth } from '../accounts/helpers.js';

const tk = await bootAccounts({ 'refresh-reuse-grace-seconds': 0 });
const { kernel } = tk;
t.teardown(() => tk.close());
const tokens = kernel.service('tokens') as TokensService;

async function offlineLogin(email: string): Promise<Auth> {
  await signup(kernel, email);
  return call<Auth>(kernel, 'login', { email, password: PASSWORD, scope: ['openid', 'offline_access'] });
}

t.test('a replay right after the token was taken ends the family, with the tokens the refresh returns', async (t) => {
  const auth = await offlineLogin('race@example.com');
  const memory: MemoryStore = kernel.memory;
  const consume = memory.consume.bind(memory);
  let replay: Promise<unknown> | undefined;
  memory.consume = async (key: string) => {
    const value = await consume(key);
    // The first take of a refresh token: the replay runs to its end before the refresh goes on.
    if (key.startsWith('refresh:') && replay === undefined) {
      replay = tokens.refresh(auth.refresh_token!).catch((err: unknown) => err);
      await replay;
    }
    return value;
  };
  t.teardown(() => {
    memory.consume = consume;
  });
  // The successor is stored before the token is taken, so the refresh in progress answers; the
  // family it answers with is the one the replay ended.
  const rotated = await tokens.refresh(auth.refresh_token!);
  t.match(await replay, { code: 'unauthenticated' }, 'the replay is refused');
  t.equal(await tokens.verifyAccessToken(rotated.tokens.access_token), null, 'the rotated access token is dead');
  await t.rejects(
    tokens.refresh(rotated.tokens.refresh_token!),
    { code: 'unauthenticated' },
    'the rotated refresh token is refused',
  );
  await t.rejects(
    call(kernel, 'profile', undefined, { bearer: auth.access_token }),
    { code: 'unauthenticated' },
    'the session is over',
  );
});

t.test('a plain replay after a refresh ends the family', async (t) => {
  const auth = await offlineLogin('replay@example.com');
  const next = await tokens.refresh(auth.refresh_token!);
  t.ok(next.tokens.access_token);
  await t.rejects(tokens.refresh(auth.refresh_token!), { code: 'unauthenticated' });
  await t.rejects(
    call(kernel, 'profile', undefined, { bearer: next.tokens.access_token }),
    { code: 'unauthenticated' },
    'the rotated tokens die with the family',
  );
});

t.test('revoking a refresh token ends its session; revoking it again says so', async (t) => {
  const auth = await offlineLogin('revoke@example.com');
  t.equal(await tokens.revokeRefreshToken(auth.refresh_token!), true);
  t.equal(await tokens.revokeRefreshToken(auth.refresh_token!), false);
  await t.rejects(call(kernel, 'profile', undefined, { bearer: auth.access_token }), { code: 'unauthenticated' });
});

t.test('a replay ends the family after `session` has rotated it into a new session', async (t) => {
  // A spent mark naming the session id would fail here: `session` moves the family to a new id,
  // and the replay would end only the old one, leaving the holder of the rotated tokens signed in.
  const auth = await offlineLogin('rotated@example.com');
  const next = await tokens.refresh(auth.refresh_token!);
  const rotated = await call<Auth>(
    kernel,
    'session',
    { scope: ['openid', 'offline_access'] },
    { bearer: next.tokens.access_token },
  );
  t.ok(rotated.refresh_token, 'the rotated session has its own refresh token');
  await call(kernel, 'profile', undefined, { bearer: rotated.access_token });
  await t.rejects(tokens.refresh(auth.refresh_token!), { code: 'unauthenticated' }, 'the replay is refused');
  await t.rejects(
    call(kernel, 'profile', undefined, { bearer: rotated.access_token }),
    { code: 'unauthenticated' },
    "the rotated session's access token is dead",
  );
  await t.rejects(tokens.refresh(rotated.refresh_token!), { code: 'unauthenticated' }, 'and so is its refresh token');
});

t.test('a replay ends only its own family: another sign-in of the user stays', async (t) => {
  const auth = await offlineLogin('two-families@example.com');
  const other = await call<Auth>(kernel, 'login', {
    email: 'two-families@example.com',
    password: PASSWORD,
    scope: ['openid', 'offline_access'],
  });
  await tokens.refresh(auth.refresh_token!);
  await t.rejects(tokens.refresh(auth.refresh_token!), { code: 'unauthenticated' });
  await call(kernel, 'profile', undefined, { bearer: other.access_token });
  t.ok((await tokens.refresh(other.refresh_token!)).tokens.access_token, "the other family's refresh still works");
});

t.test('revoking a refresh token ends the session it was rotated into', async (t) => {
  const auth = await offlineLogin('revoke-rotated@example.com');
  const rotated = await call<Auth>(kernel, 'session', undefined, { bearer: auth.access_token });
  t.equal(await tokens.revokeRefreshToken(auth.refresh_token!), true);
  await t.rejects(call(kernel, 'profile', undefined, { bearer: rotated.access_token }), { code: 'unauthenticated' });
});
