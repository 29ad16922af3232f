/**
 * The login lockout (five failed logins lock the account for 15
 * minutes) under a burst of parallel guesses and against a clock the test moves forward
 * (helpers.ts bootAccountsWithClock).
 */
import t from 'tap';
import { createHashWorkers, type HashWorkers } from '../../../plugins/users/hash-workers.js';
import { createUsersService } from '../../../plugins/users/service.js';
import { bootAccountsWithClock, call, PASSWORD, signup } from './helpers.js';

const { kernel, advance, close } = await bootAccountsWithClock();
t.teardown(close);

const MINUTE = 60_000;
const login = (email: string, password: string) => call(kernel, 'login', { email, password });
const outcome = (r: PromiseSettledResult<unknown>) =>
  r.status === 'fulfilled' ? 'ok' : (r.reason as { code: string }).code;

t.test(
  'a burst of parallel guesses: only the first five are checked, the right password among the rest is refused',
  async (t) => {
    await signup(kernel, 'burst@example.com');
    const guesses = [...Array.from({ length: 11 }, () => 'wrong-pass-1'), PASSWORD];
    const results = (await Promise.allSettled(guesses.map((p) => login('burst@example.com', p)))).map(outcome);
    // Five guesses are checked (in whatever order their hashes finish): four fail, the fifth failure
    // locks; every other guess, the right password included, is refused unhashed.
    t.equal(results.filter((r) => r === 'unauthenticated').length, 4, 'four failures');
    t.equal(results.filter((r) => r === 'resource_exhausted').length, 8, 'the fifth locks; the rest are refused');
    t.equal(results[11], 'resource_exhausted', 'the right password, sent last, never got a check');
    await t.rejects(login('burst@example.com', PASSWORD), { code: 'resource_exhausted' }, 'still locked afterwards');
  },
);

t.test('many right logins at once are no lockout: those past the first five wait and go on', async (t) => {
  await signup(kernel, 'busy@example.com');
  const results = (await Promise.allSettled(Array.from({ length: 12 }, () => login('busy@example.com', PASSWORD)))).map(
    outcome,
  );
  t.same(
    results,
    Array.from({ length: 12 }, () => 'ok'),
  );
  await t.rejects(
    login('busy@example.com', 'wrong-pass-1'),
    { code: 'unauthenticated' },
    'and the count starts afresh',
  );
});

t.test('three failures and right logins at once: the failures do not lock, the right ones get in', async (t) => {
  await signup(kernel, 'mixed@example.com');
  const guesses = ['wrong-pass-1', 'wrong-pass-1', 'wrong-pass-1', ...Array.from({ length: 6 }, () => PASSWORD)];
  const results = (await Promise.allSettled(guesses.map((p) => login('mixed@example.com', p)))).map(outcome);
  t.same(results, ['unauthenticated', 'unauthenticated', 'unauthenticated', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
});

t.test('one wrong password among right ones at once is one failure, not a lock', async (t) => {
  await signup(kernel, 'typo@example.com');
  const guesses = [PASSWORD, PASSWORD, PASSWORD, PASSWORD, 'wrong-pass-1', PASSWORD];
  const results = (await Promise.allSettled(guesses.map((p) => login('typo@example.com', p)))).map(outcome);
  t.same(results, ['ok', 'ok', 'ok', 'ok', 'unauthenticated', 'ok']);
  await login('typo@example.com', PASSWORD);
});

t.test('the lock lasts 15 minutes from the fifth failure, whenever the first one was', async (t) => {
  await signup(kernel, 'clock@example.com');
  await t.rejects(login('clock@example.com', 'wrong-pass-1'), { code: 'unauthenticated' });
  advance(14 * MINUTE + 50_000);
  for (let i = 0; i < 3; i++) await t.rejects(login('clock@example.com', 'wrong-pass-1'), { code: 'unauthenticated' });
  await t.rejects(login('clock@example.com', 'wrong-pass-1'), { code: 'resource_exhausted' }, 'fifth failure locks');
  advance(15_000); // past the first failure's 15 minutes
  await t.rejects(login('clock@example.com', PASSWORD), { code: 'resource_exhausted' }, 'still locked 15 s later');
  advance(14 * MINUTE);
  await t.rejects(
    login('clock@example.com', PASSWORD),
    { code: 'resource_exhausted' },
    'still locked 14 min 15 s later',
  );
  advance(MINUTE);
  const auth = await call<{ message: string }>(kernel, 'login', { email: 'clock@example.com', password: PASSWORD });
  t.equal(auth.message, 'Logged in successfully', 'open again 15 min 15 s after the lock');
});

t.test('a success clears the count: failures before it do not add up with later ones', async (t) => {
  await signup(kernel, 'reset@example.com');
  for (let i = 0; i < 4; i++) await t.rejects(login('reset@example.com', 'wrong-pass-1'), { code: 'unauthenticated' });
  await login('reset@example.com', PASSWORD);
  for (let i = 0; i < 4; i++)
    await t.rejects(
      login('reset@example.com', 'wrong-pass-1'),
      { code: 'unauthenticated' },
      `failure ${i + 1} after the success`,
    );
  await login('reset@example.com', PASSWORD);
});

t.test('an email with no account fails and locks like one: the 429 does not tell which accounts exist', async (t) => {
  await signup(kernel, 'known@example.com');
  for (const email of ['known@example.com', 'nobody-here@example.com']) {
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(outcome((await Promise.allSettled([login(email, 'wrong-pass-1')]))[0]));
    t.same(
      seen,
      [
        'unauthenticated',
        'unauthenticated',
        'unauthenticated',
        'unauthenticated',
        'resource_exhausted',
        'resource_exhausted',
      ],
      email,
    );
  }
  await t.rejects(
    login('NOBODY-HERE@example.com', 'wrong-pass-1'),
    { code: 'resource_exhausted' },
    'the same address in other case',
  );
  await t.rejects(
    login('someone-else@example.com', 'wrong-pass-1'),
    { code: 'unauthenticated' },
    'another unknown address is counted apart',
  );
});

t.test(
  'every spelling of one identifier shares its count, known or not, and an account without a password locks too',
  async (t) => {
    // Counting all spellings of a known account together (its id) while an unknown address
    // counted each spelling apart would let ' X@…' after five failures of 'x@…' tell them apart.
    const spellings = (email: string) => [email, ` ${email.toUpperCase()}`, `${email} `, email.toUpperCase(), email];
    await signup(kernel, 'spelled@example.com');
    for (const email of ['spelled@example.com', 'unspelled@example.com']) {
      const seen: string[] = [];
      for (const spelled of [...spellings(email), email])
        seen.push(outcome((await Promise.allSettled([login(spelled, 'wrong-pass-1')]))[0]));
      t.same(
        seen,
        [
          'unauthenticated',
          'unauthenticated',
          'unauthenticated',
          'unauthenticated',
          'resource_exhausted',
          'resource_exhausted',
        ],
        email,
      );
    }
    // An account with no password (a magic-link or social sign-up) never locked, unlike both.
    await kernel
      .service('users')
      .create({ email: 'no-password@example.com', roles: ['user'], signup_method: 'magic_link_login' });
    const seen: string[] = [];
    for (let i = 0; i < 6; i++)
      seen.push(outcome((await Promise.allSettled([login('no-password@example.com', 'wrong-pass-1')]))[0]));
    t.same(
      seen,
      [
        'unauthenticated',
        'unauthenticated',
        'unauthenticated',
        'unauthenticated',
        'resource_exhausted',
        'resource_exhausted',
      ],
      'no-password@example.com',
    );
  },
);

t.test(
  'a burst of guesses is answered alike for an unknown address and an account: five checked, the rest refused unhashed',
  async (t) => {
    // If an unknown address hashed all twenty decoys while an account hashed five, the burst's
    // duration would tell them apart in every round.
    // A users service over the kernel's own storage and memory store whose hash threads count
    // the checks they run (real Argon2id, counted on the way in).
    const workers = createHashWorkers(2);
    t.teardown(() => workers.close());
    let checked = 0;
    const counting: HashWorkers = {
      ...workers,
      verify: (stored, password) => (checked++, workers.verify(stored, password)),
    };
    const users = createUsersService({
      config: kernel.config,
      storage: kernel.storage,
      memory: kernel.memory,
      hooks: kernel.hooks,
      logger: kernel.logger,
      hashers: counting,
    });
    const known = await users.create({
      email: 'burst-known@example.com',
      password: 'right-pass-1',
      roles: ['user'],
      signup_method: 'basic_auth',
    });
    const unknown = { ...known, id: 'no-such-user', password: null };
    const bursts: [string, () => Promise<string>][] = [
      ['an account', () => users.verifyPassword(known, 'wrong-pass-1')],
      ['an unknown address', () => users.verifyPassword(unknown, 'wrong-pass-1', 'email:burst-unknown@example.com')],
    ];
    for (const [who, attempt] of bursts) {
      checked = 0;
      const results = await Promise.all(Array.from({ length: 20 }, attempt));
      t.equal(checked, 5, `${who}: five hashes`);
      t.equal(
        results.filter((r) => r === 'locked').length,
        16,
        `${who}: the fifth failure locks, the rest are refused unhashed`,
      );
    }
  },
);

t.test('a success clears failures counted while it was hashing, beside it', async (t) => {
  // Four wrong guesses and the right one at once: the success (which read none before its hash)
  // must clear the four, or one more wrong guess locks the account.
  await signup(kernel, 'beside@example.com');
  const guesses = ['wrong-pass-1', 'wrong-pass-1', 'wrong-pass-1', 'wrong-pass-1', PASSWORD];
  const results = (await Promise.allSettled(guesses.map((p) => login('beside@example.com', p)))).map(outcome);
  t.same(results, ['unauthenticated', 'unauthenticated', 'unauthenticated', 'unauthenticated', 'ok']);
  await t.rejects(
    login('beside@example.com', 'wrong-pass-1'),
    { code: 'unauthenticated' },
    'one more wrong guess is one failure, not the fifth',
  );
  await login('beside@example.com', PASSWORD);
});
