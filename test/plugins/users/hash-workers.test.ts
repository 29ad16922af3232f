/** Password hashing on worker threads: real Argon2id hashes, verified both ways, more jobs than workers, a worker's next job queued with it, answers in batches of up to three when a worker is behind, a dying worker, clean shutdown. */
import t from 'tap';
import { createHashWorkers, HASH_WORKER_SOURCE } from '../../../plugins/users/hash-workers.js';
import { hashPassword, verifyPassword } from '../../../plugins/users/password.js';

const params = { memoryCost: 4096, timeCost: 1, parallelism: 1 };

t.test('hash and verify; a wrong password or a malformed hash is false', async (t) => {
  const w = createHashWorkers(2);
  t.teardown(() => w.close());
  const stored = await w.hash('Secret-123', params);
  t.match(stored, /^\$argon2id\$v=19\$m=4096,t=1,p=1\$/, 'a PHC Argon2id string');
  t.equal(await verifyPassword(stored, 'Secret-123'), true, 'the libuv path accepts it too');
  t.equal(await w.verify(stored, 'Secret-123'), true);
  t.equal(await w.verify(stored, 'secret-123'), false);
  t.equal(await w.verify('not-a-hash', 'Secret-123'), false);
});

t.test('more jobs than workers all complete, each with its own answer', async (t) => {
  const w = createHashWorkers(2);
  t.teardown(() => w.close());
  const passwords = Array.from({ length: 7 }, (_, i) => `pw-${i}-long-enough`);
  const hashes = await Promise.all(passwords.map((p) => w.hash(p, params)));
  t.equal(new Set(hashes).size, 7, 'distinct salts');
  const checks = await Promise.all(hashes.map((h, i) => w.verify(h, passwords[(i + 1) % 7])));
  t.same(checks, Array(7).fill(false), 'each hash only matches its own password');
  t.same(await Promise.all(hashes.map((h, i) => w.verify(h, passwords[i]))), Array(7).fill(true));
});

t.test('a worker already holds its next job: it does not wait for the event loop to hand it over', async (t) => {
  const w = createHashWorkers(1);
  t.teardown(() => w.close());
  const stored = await w.hash('Secret-123', params);
  let answered = 0;
  const jobs = [w.verify(stored, 'Secret-123'), w.verify(stored, 'wrong-password')].map((p) =>
    p.then((ok) => {
      answered++;
      return ok;
    }),
  );
  // The event loop is stuck for far longer than two small hashes take. Had the worker been given
  // one job at a time, the second would only start once the loop read the first answer.
  const until = Date.now() + 1000;
  while (Date.now() < until) {
    // busy: no callback of this thread runs
  }
  await new Promise((resolve) => setTimeout(resolve, 0));
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(answered, 2, 'both answers were waiting when the event loop came back');
  t.same(await Promise.all(jobs), [true, false]);
});

t.test('close rejects queued work and refuses new work', async (t) => {
  const w = createHashWorkers(1);
  const jobs = Array.from({ length: 3 }, (_, i) =>
    w.hash(`pw-${i}-long-enough`, params).then(
      () => 'done',
      (e: Error) => e.message,
    ),
  );
  await w.close();
  const outcomes = await Promise.all(jobs);
  t.ok(
    outcomes.some((o) => o !== 'done'),
    'queued jobs are rejected',
  );
  await t.rejects(w.hash('late-password', params), { message: 'password hashing is shut down' });
});

t.test(
  'a worker that dies fails only the job it was running; the one queued behind it is hashed elsewhere',
  async (t) => {
    // The real worker program, behind a listener that ends the thread when it is handed "crash",
    // before the worker has written which job it started: the pool then fails the oldest job it
    // held, and the job waiting in the port is lost with the thread.
    const dying = `const port = require('node:worker_threads').parentPort; port.on('message', (job) => { if (job.password === 'crash') process.exit(1); });\n${HASH_WORKER_SOURCE}`;
    const w = createHashWorkers(1, dying);
    t.teardown(() => w.close());
    const stored = await w.hash('Secret-123', params);
    // One worker, two jobs: the crash runs, the verification waits in the same worker's port.
    const crashed = w.hash('crash', params).then(
      () => 'hashed',
      (e: Error) => e.message,
    );
    const waiting = w.verify(stored, 'Secret-123');
    t.equal(await crashed, 'password hashing worker stopped', 'the running job fails');
    t.equal(await waiting, true, 'the job queued behind it is answered by the replacement worker');
    t.equal(await w.verify(stored, 'wrong-password'), false, 'the pool keeps working');
  },
);

/** A costly hash next to a cheap one: long enough that answering the cheap one at once shows. */
const slow = { memoryCost: 65_536, timeCost: 3, parallelism: 1 };

t.test('a worker that is behind answers two jobs together; one with nothing waiting answers at once', async (t) => {
  const w = createHashWorkers(1);
  t.teardown(() => w.close());
  // The first jobs of a pool: its thread starts with them, so both are waiting in its port before
  // it runs the first. The cheap one's answer is held while the costly one runs, and both go
  // back in one message.
  const at: number[] = [];
  const cheap = w.hash('cheap-two-long-enough', params).then((h) => (at.push(performance.now()), h));
  const costly = w.hash('slow-two-long-enough', slow).then((h) => (at.push(performance.now()), h));
  const [first, second] = await Promise.all([cheap, costly]);
  t.match(first, /^\$argon2id\$v=19\$m=4096,/, 'the cheap job has its own answer');
  t.match(second, /^\$argon2id\$v=19\$m=65536,/, 'the costly job has its own answer');

  const alone = performance.now();
  await w.hash('slow-one-long-enough', slow);
  const slowMs = performance.now() - alone;
  const started = performance.now();
  await w.hash('cheap-one-long-enough', params);
  const cheapMs = performance.now() - started;
  t.ok(
    Math.abs(at[1] - at[0]) < slowMs / 4,
    `both answers arrived together (${Math.abs(at[1] - at[0]).toFixed(1)} ms apart; the costly hash takes ${slowMs.toFixed(0)} ms)`,
  );
  t.ok(
    cheapMs < slowMs / 2,
    `alone, a cheap hash is answered when it is done (${cheapMs.toFixed(0)} ms against ${slowMs.toFixed(0)} ms for the costly one)`,
  );
});

t.test('a worker that is behind answers up to three jobs together, and the fourth apart', async (t) => {
  const w = createHashWorkers(1);
  t.teardown(() => w.close());
  // Four jobs before the thread has started, all waiting in its port: the two cheap answers are
  // held while the costly third runs, and the three go back in one message; the fourth (costly)
  // is answered on its own, a whole costly hash later.
  const at: number[] = [];
  const timed = (p: Promise<string>, i: number) => p.then((h) => ((at[i] = performance.now()), h));
  const hashes = await Promise.all([
    timed(w.hash('cheap-a-long-enough', params), 0),
    timed(w.hash('cheap-b-long-enough', params), 1),
    timed(w.hash('slow-c-long-enough', slow), 2),
    timed(w.hash('slow-d-long-enough', slow), 3),
  ]);
  t.same(
    hashes.map((h) => /m=(\d+),/.exec(h)?.[1]),
    ['4096', '4096', '65536', '65536'],
    'each job has its own answer',
  );
  // The shortest of three costly hashes alone: a bound no real costly hash beats, however the
  // other test processes load the machine meanwhile.
  const alone: number[] = [];
  for (const key of ['slow-e-long-enough', 'slow-f-long-enough', 'slow-g-long-enough']) {
    const started = performance.now();
    await w.hash(key, slow);
    alone.push(performance.now() - started);
  }
  const slowMs = Math.min(...alone);
  const spread = Math.max(at[0], at[1], at[2]) - Math.min(at[0], at[1], at[2]);
  t.ok(
    spread < slowMs / 4,
    `the first three arrived together (${spread.toFixed(1)} ms apart; a costly hash takes ${slowMs.toFixed(0)} ms)`,
  );
  t.ok(at[3] - at[2] > slowMs / 2, `the fourth came a costly hash later (${(at[3] - at[2]).toFixed(0)} ms)`);
});

t.test(
  'a worker that dies on the second job of a pair fails that job only; the finished one it held is run again',
  async (t) => {
    // The real worker program over an Argon2 whose hash of "crash" ends the thread mid-job, after
    // the worker has written which job it started.
    const crashing = `const real = require(require('node:worker_threads').workerData.argon2Path);
require.cache[require.resolve(require('node:worker_threads').workerData.argon2Path)].exports = { ...real, hashSync: (pw, p) => (pw === 'crash' ? process.exit(1) : real.hashSync(pw, p)) };
${HASH_WORKER_SOURCE}`;
    const stored = await hashPassword('Secret-123', params);
    const w = createHashWorkers(1, crashing);
    t.teardown(() => w.close());
    // One worker, three jobs before its thread has started, so all are waiting in its port: it
    // finishes the first, takes the crash from its port (the first answer held for the pair), and
    // dies; the third never started.
    const outcome = (p: Promise<unknown>) =>
      p.then(
        (v) => (typeof v === 'string' ? 'hashed' : v),
        (e: Error) => e.message,
      );
    const [first, crashed, third] = await Promise.all([
      outcome(w.hash('first-long-enough', params)),
      outcome(w.hash('crash', params)),
      outcome(w.verify(stored, 'Secret-123')),
    ]);
    t.equal(crashed, 'password hashing worker stopped', 'the job that killed the worker fails');
    t.equal(first, 'hashed', 'the job finished but not yet answered is hashed again by the replacement');
    t.equal(third, true, 'the job that never started is answered by the replacement');
    t.equal(await w.verify(stored, 'wrong-password'), false, 'the pool keeps working');
  },
);
