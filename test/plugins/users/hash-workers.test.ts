/** Password hashing on worker threads: real Argon2id hashes, verified both ways, more jobs than workers, a worker's next job queued with it, a dying worker, clean shutdown. */
import t from 'tap';
import { createHashWorkers, HASH_WORKER_SOURCE } from '../../../plugins/users/hash-workers.js';
import { verifyPassword } from '../../../plugins/users/password.js';

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
  const jobs = Array.from({ length: 3 }, (_, i) => w.hash(`pw-${i}-long-enough`, params).then(() => 'done', (e: Error) => e.message));
  await w.close();
  const outcomes = await Promise.all(jobs);
  t.ok(outcomes.some((o) => o !== 'done'), 'queued jobs are rejected');
  await t.rejects(w.hash('late-password', params), { message: 'password hashing is shut down' });
});

t.test('a worker that dies fails only the job it was running; the one queued behind it is hashed elsewhere', async (t) => {
  // The real worker program, behind a listener that closes the thread's port when asked to hash
  // "crash": the answer and the job waiting in the port are lost, and the thread ends.
  const dying = `const port = require('node:worker_threads').parentPort; port.on('message', (job) => { if (job.password === 'crash') port.close(); });\n${HASH_WORKER_SOURCE}`;
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
});
