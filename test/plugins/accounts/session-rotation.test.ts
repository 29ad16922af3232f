/**
 * `session` rotates the session (issue 3), and tabs of one browser share its cookie: each calls
 * `session` as it loads (the JavaScript SDK does). Concurrent rotations elect one successor that
 * every caller gets, and for ROTATION_GRACE_MS the old cookie stands for it without rotating it
 * again; the old session's access tokens end with it, as before. The clock is moved forward by
 * the test (helpers.ts bootAccountsWithClock).
 */
import t from 'tap';
import { ROTATION_GRACE_MS } from '../../../plugins/sessions/service.js';
import { testContext } from '../../helpers/kernel.js';
import { bootAccountsWithClock, call, callWithContext, PASSWORD, signup, type Auth } from './helpers.js';

const { kernel, advance, close } = await bootAccountsWithClock();
t.teardown(close);

async function loginCookie(email: string): Promise<{ cookie: string; auth: Auth }> {
  const { result, ctx } = await callWithContext(kernel, 'login', { email, password: PASSWORD });
  return { cookie: ctx.setCookies.find((c) => c.name === 'cookie_session')!.value, auth: result as unknown as Auth };
}

/** A `session` call with a cookie: its answer (or error code) and the cookie it set. */
async function refresh(cookie: string): Promise<{ auth?: Auth; code?: string; cookie?: string }> {
  const ctx = testContext(kernel, { headers: {}, cookies: { cookie_session: cookie } });
  try {
    const auth = (await kernel.invoke('session', ctx, {})) as Auth;
    return { auth, cookie: ctx.setCookies.find((c) => c.name === 'cookie_session')?.value };
  } catch (err) {
    return { code: (err as { code: string }).code };
  }
}

const sidOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sid: string }).sid;
const valid = async (token: string) =>
  (await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', { token_type: 'access_token', token })).is_valid;
const sessionsOf = async (userId: string) => (await kernel.memory.keys(`session:${userId}:`)).length;

t.test('tabs refreshing at once all get the same new session, and all their tokens work', async (t) => {
  await signup(kernel, 'tabs@example.com');
  const { cookie, auth } = await loginCookie('tabs@example.com');
  const before = await sessionsOf(auth.user.id);
  const answers = await Promise.all([refresh(cookie), refresh(cookie), refresh(cookie), refresh(cookie)]);
  t.same(
    answers.map((a) => a.code),
    [undefined, undefined, undefined, undefined],
    'no tab is refused',
  );
  const sids = new Set(answers.map((a) => sidOf(a.auth!.access_token)));
  t.equal(sids.size, 1, 'one successor for all of them');
  t.not([...sids][0], sidOf(auth.access_token), 'and it is a new session');
  for (const a of answers) t.equal(await valid(a.auth!.access_token), true, "each tab's token is valid");
  t.equal(
    await sessionsOf(auth.user.id),
    before,
    'one successor stored in place of the old session: the losers withdrew theirs',
  );
  t.equal(await valid(auth.access_token), false, "the old session's token ended with it");
});

t.test('a tab arriving just after a rotation is answered with the successor, which is not rotated again', async (t) => {
  await signup(kernel, 'late@example.com');
  const { cookie } = await loginCookie('late@example.com');
  const first = await refresh(cookie);
  advance(ROTATION_GRACE_MS - 1_000);
  const late = await refresh(cookie);
  t.equal(late.code, undefined, 'the old cookie, within the grace, is answered');
  t.equal(sidOf(late.auth!.access_token), sidOf(first.auth!.access_token), 'with the session the first tab got');
  t.equal(await valid(first.auth!.access_token), true, "the first tab's token still works");
  t.equal(
    (await call<{ email: string }>(kernel, 'profile', undefined, { cookies: { cookie_session: late.cookie! } })).email,
    'late@example.com',
    'the cookie it set works',
  );
});

t.test('after the grace the old cookie is refused', async (t) => {
  await signup(kernel, 'after@example.com');
  const { cookie } = await loginCookie('after@example.com');
  const first = await refresh(cookie);
  advance(ROTATION_GRACE_MS + 1_000);
  t.equal((await refresh(cookie)).code, 'unauthenticated', 'a copied old cookie is of no use after the grace');
  await t.rejects(call(kernel, 'profile', undefined, { cookies: { cookie_session: cookie } }), {
    code: 'unauthenticated',
  });
  t.equal((await refresh(first.cookie!)).code, undefined, 'the new cookie rotates as usual');
});

t.test('logging out from a tab with the old cookie ends the successor too', async (t) => {
  await signup(kernel, 'out@example.com');
  const { cookie, auth } = await loginCookie('out@example.com');
  const before = await sessionsOf(auth.user.id);
  const first = await refresh(cookie);
  await call(kernel, 'logout', undefined, { cookies: { cookie_session: cookie } });
  t.equal(await valid(first.auth!.access_token), false, "the successor's token is dead");
  t.equal(await sessionsOf(auth.user.id), before - 1, "the browser's session is gone (signup's own session stays)");
  t.equal((await refresh(cookie)).code, 'unauthenticated', 'the old cookie no longer stands for anything');
  t.equal((await refresh(first.cookie!)).code, 'unauthenticated', 'nor the new one');
});

t.test('a bearer token of a rotated session does not reach its successor', async (t) => {
  await signup(kernel, 'bearer@example.com');
  const { cookie, auth } = await loginCookie('bearer@example.com');
  await refresh(cookie);
  await t.rejects(call(kernel, 'session', {}, { bearer: auth.access_token }), { code: 'unauthenticated' });
  await t.rejects(call(kernel, 'profile', undefined, { bearer: auth.access_token }), { code: 'unauthenticated' });
});
