/**
 * A login past the five checks already running for one identifier waits for them, and after
 * the wait (3 s) is answered "in progress" (429), the same for an unknown address as for an
 * account: answering the unknown address's 401 first made the busy answer tell accounts apart
 * (review finding, session 19). One hashing thread makes the five checks take long enough for
 * the test's clock to pass the wait while they run.
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { bootAccountsWithClock, call, PASSWORD, signup } from './helpers.js';

const { kernel, advance, close } = await bootAccountsWithClock({ 'password-hash-threads': 1 });
t.teardown(close);

const answer = (r: PromiseSettledResult<unknown>) => (r.status === 'fulfilled' ? 'ok' : `${(r.reason as { code: string }).code}: ${(r.reason as Error).message}`);
const IN_PROGRESS = 'resource_exhausted: too many login attempts in progress for this account, try again shortly';
const LOCKED = 'resource_exhausted: too many failed login attempts, account locked for 15 minutes';
const UNAUTHENTICATED = 'unauthenticated: bad user credentials';

t.test('a sixth login while five are hashing is "in progress" for an account and an unknown address alike', async (t) => {
  await signup(kernel, 'warm@example.com');
  await call(kernel, 'login', { email: 'warm@example.com', password: PASSWORD });
  await signup(kernel, 'crowded@example.com');
  for (const email of ['crowded@example.com', 'nobody-crowded@example.com']) {
    const attempts = Array.from({ length: 6 }, () => call(kernel, 'login', { email, password: 'wrong-pass-1' }));
    // The sixth has read the clock and is waiting; the five hash one after another (~50 ms or
    // more on one thread). Move the clock past its wait.
    await sleep(20);
    advance(4_000);
    const results = (await Promise.allSettled(attempts)).map(answer);
    t.same(results.slice(0, 5).sort(), [LOCKED, UNAUTHENTICATED, UNAUTHENTICATED, UNAUTHENTICATED, UNAUTHENTICATED], `${email}: five checked, the fifth failure locks`);
    t.equal(results[5], IN_PROGRESS, `${email}: the sixth is told the checks are in progress`);
  }
});
