/**
 * The reuse grace of refresh-token rotation: a client whose rotation answer was lost (a crash
 * after the rotation was stored, a dropped connection) presents the same token again. Within
 * `--refresh-reuse-grace-seconds` (10 s by default) of the rotation, from the same client, and
 * while the successor it never received is unused, that repeat rotates anew and the unreceived
 * successor is revoked; later, or once the successor was used, it is reuse and ends the family
 * (RFC 9700 §4.14.2).
 */
import t from 'tap';
import type { TokensService } from '../../../plugins/tokens/types.js';
import { bootAccountsWithClock, call, PASSWORD, signup, type Auth } from '../accounts/helpers.js';

const tk = await bootAccountsWithClock();
const { kernel } = tk;
t.teardown(() => tk.close());
const tokens = kernel.service('tokens') as TokensService;

async function offlineLogin(email: string): Promise<Auth> {
  await signup(kernel, email);
  return call<Auth>(kernel, 'login', { email, password: PASSWORD, scope: ['openid', 'offline_access'] });
}
const alive = async (access: string) => (await tokens.verifyAccessToken(access)) !== null;

t.test('a repeat within the grace rotates anew and revokes the successor never received', async (t) => {
  const auth = await offlineLogin('grace@example.com');
  const lost = await tokens.refresh(auth.refresh_token!);
  tk.advance(5_000);
  const again = await tokens.refresh(auth.refresh_token!);
  t.not(again.tokens.refresh_token, lost.tokens.refresh_token, 'a fresh rotation');
  t.ok(await alive(again.tokens.access_token), 'the family goes on');
  t.equal(again.session.id, lost.session.id, 'in the same session');
  await t.rejects(
    tokens.refresh(lost.tokens.refresh_token!),
    { code: 'unauthenticated' },
    'the unreceived successor is refused',
  );
  // The unreceived successor, presented after all, is reuse: the family ends.
  t.notOk(await alive(again.tokens.access_token), 'presenting the revoked successor ended the family');
});

t.test('the revoked successor presented first ends the family', async (t) => {
  const auth = await offlineLogin('grace-successor@example.com');
  const lost = await tokens.refresh(auth.refresh_token!);
  const again = await tokens.refresh(auth.refresh_token!);
  await t.rejects(tokens.refresh(lost.tokens.refresh_token!), { code: 'unauthenticated' }, 'the successor is refused');
  t.notOk(await alive(again.tokens.access_token), 'and the family is over');
  await t.rejects(tokens.refresh(again.tokens.refresh_token!), { code: 'unauthenticated' });
});

t.test('a repeat after the grace is reuse and ends the family', async (t) => {
  const auth = await offlineLogin('late@example.com');
  const next = await tokens.refresh(auth.refresh_token!);
  tk.advance(10_001);
  await t.rejects(tokens.refresh(auth.refresh_token!), { code: 'unauthenticated' }, 'the repeat is refused');
  t.notOk(await alive(next.tokens.access_token), 'the family is over');
  await t.rejects(tokens.refresh(next.tokens.refresh_token!), { code: 'unauthenticated' });
});

t.test('repeats cannot stretch the grace: it counts from the first rotation', async (t) => {
  const auth = await offlineLogin('stretch@example.com');
  await tokens.refresh(auth.refresh_token!);
  tk.advance(6_000);
  const second = await tokens.refresh(auth.refresh_token!);
  tk.advance(6_000);
  await t.rejects(tokens.refresh(auth.refresh_token!), { code: 'unauthenticated' }, '12 s after the rotation');
  t.notOk(await alive(second.tokens.access_token), 'the family is over');
});

t.test('a repeat whose successor was already used is reuse', async (t) => {
  const auth = await offlineLogin('used@example.com');
  const next = await tokens.refresh(auth.refresh_token!);
  const after = await tokens.refresh(next.tokens.refresh_token!);
  await t.rejects(tokens.refresh(auth.refresh_token!), { code: 'unauthenticated' });
  t.notOk(await alive(after.tokens.access_token), 'the family is over');
});

t.test('a repeat from another client is reuse', async (t) => {
  const auth = await offlineLogin('other-client@example.com');
  const next = await tokens.refresh(auth.refresh_token!);
  await t.rejects(tokens.refresh(auth.refresh_token!, { clientId: 'someone-else' }), { code: 'unauthenticated' });
  t.notOk(await alive(next.tokens.access_token), 'the family is over');
});

t.test('a revoked refresh token gets no grace', async (t) => {
  const auth = await offlineLogin('revoked-grace@example.com');
  t.equal(await tokens.revokeRefreshToken(auth.refresh_token!), true);
  await t.rejects(tokens.refresh(auth.refresh_token!), { code: 'unauthenticated' });
});

t.test('a rotation stopped before the token was spent leaves it usable, and its successor goes', async (t) => {
  const auth = await offlineLogin('stopped@example.com');
  const memory = kernel.memory;
  const consume = memory.consume.bind(memory);
  // The process stops where the spend would be: everything before it was written, the spend not.
  memory.consume = async (key: string) => {
    if (key.startsWith('refresh:')) throw new Error('stopped before the spend');
    return consume(key);
  };
  const before = await memory.keys('refresh:');
  await t.rejects(tokens.refresh(auth.refresh_token!), /stopped before the spend/);
  memory.consume = consume;
  const orphans = (await memory.keys('refresh:')).filter((k) => !before.includes(k));
  t.equal(orphans.length, 1, 'the successor was stored');
  const retried = await tokens.refresh(auth.refresh_token!);
  t.ok(await alive(retried.tokens.access_token), 'the retry rotates: the token was never spent');
  t.notOk(await memory.get(orphans[0]), 'the successor no client received is gone');
});
