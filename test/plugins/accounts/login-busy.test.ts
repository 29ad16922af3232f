/**
 * A login past the five checks already running for one identifier waits for them, and after
 * the wait (3 s) is answered "in progress" (429), the same for an unknown address as for an
 * account: answering the unknown address's 401 first would make the busy answer tell accounts
 * apart. The test's clock passes the wait at the moment the sixth attempt
 * starts reading its failure count (it has taken its deadline by then), while the five hash.
 */
import t from 'tap';
import { bootAccountsWithClock, call, PASSWORD, signup } from './helpers.js';

const { kernel, advance, close } = await bootAccountsWithClock();
t.teardown(close);

const answer = (r: PromiseSettledResult<unknown>) =>
  r.status === 'fulfilled' ? 'ok' : `${(r.reason as { code: string }).code}: ${(r.reason as Error).message}`;
const IN_PROGRESS = 'resource_exhausted: too many login attempts in progress for this account, try again shortly';
const LOCKED = 'resource_exhausted: too many failed login attempts, account locked for 15 minutes';
const UNAUTHENTICATED = 'unauthenticated: bad user credentials';

// Every read of a failure count goes through here; the sixth read of a burst moves the clock.
const memory = kernel.memory;
const read = memory.get.bind(memory);
let countReads = -1;
memory.get = (key) => {
  if (countReads >= 0 && key.startsWith('login-failures:') && ++countReads === 6) advance(4_000);
  return read(key);
};

t.test(
  'a sixth login while five are hashing is "in progress" for an account and an unknown address alike',
  async (t) => {
    await signup(kernel, 'crowded@example.com');
    for (const email of ['crowded@example.com', 'nobody-crowded@example.com']) {
      countReads = 0;
      const results = (
        await Promise.allSettled(
          Array.from({ length: 6 }, () => call(kernel, 'login', { email, password: 'wrong-pass-1' })),
        )
      ).map(answer);
      countReads = -1;
      t.same(
        results.slice(0, 5).sort(),
        [LOCKED, UNAUTHENTICATED, UNAUTHENTICATED, UNAUTHENTICATED, UNAUTHENTICATED],
        `${email}: five checked, the fifth failure locks`,
      );
      t.equal(results[5], IN_PROGRESS, `${email}: the sixth is told the checks are in progress`);
    }
    await t.rejects(
      call(kernel, 'login', { email: 'crowded@example.com', password: PASSWORD }),
      { code: 'resource_exhausted' },
      'and the account is locked',
    );
  },
);
