/**
 * Password hashing on dedicated worker threads, not on libuv's thread pool.
 *
 * Why (measured with bench/accounts and CPU profiles): @node-rs/argon2's async calls run on the
 * libuv pool, which is also where WebCrypto runs every JWT signature and verification (jose).
 * Under a login load the pool's 4 threads were all busy with 10-40 ms hashes, so each login's two
 * signatures (access and ID token) queued behind other logins' hashes, and while a login waited
 * for its signatures no hash of its own was running: the pool was never fully used for hashing
 * and logins reached ~60-75% of the raw hash ceiling. The async call also spends ~1.3 ms on the
 * calling thread (the 19 MiB block) before the pool takes over. Here each worker runs the
 * synchronous Argon2id call start to finish, at most one hash per worker, FIFO, so the event
 * loop and the libuv pool stay free for the short work of the same requests.
 *
 * Each worker is given up to PIPELINE_DEPTH jobs at once (idle workers first). With only one,
 * a worker that finished a hash went to sleep until the event loop woke up, read its answer and
 * posted the next job: under a login load that cost every hash a sleep and a wake-up of its
 * thread (~0.6 ms more system time per hash than the same hashes on libuv's pool, which takes
 * queued work back to back), and the event loop's own delay on a busy machine left the thread
 * idle. A second job waiting in the worker's port starts the moment the first one ends.
 *
 * Answers go back together when the worker is behind (up to three at once): a worker that
 * finishes a hash while its next job is already waiting in its port runs that one too, and so on up to REPLY_BATCH jobs, then posts their answers in one
 * message. A worker with nothing waiting answers at once, so an unloaded server adds no delay; a
 * loaded one answers the first login of a batch up to two hashes later (~10-40 ms), while its
 * request was queued behind other hashes anyway (at a given number in flight, more logins per
 * second also means less time per login: Little's law). Why: every answer wakes the event loop,
 * and after a hash (two 19 MiB Argon2id blocks streaming through the caches the event loop
 * shares) a wake-up finds its code and data cold. With cheap hashes a login costs
 * the main thread ~0.34 ms; with Argon2id beside it, ~1.5 ms (bench/profiling/login-cpu.ts,
 * 2-core AMD EPYC VM). Two logins per wake-up pay that once: in an A/B of 4
 * interleaved rounds the main thread's CPU per login went from 1.38 to 0.96 ms, the hash
 * threads' from 12.5 to 12.2 ms, and logins from 88.0% to 92.3% of the raw hash ceiling.
 * Up to three answers per message rather than two: on a 2-core Intel Xeon VM (L3 480 MiB), in an
 * A/B of 6 interleaved rounds of 8 s (login-cpu.ts AGAINST, 64 accounts, 8 in flight), the main
 * thread cost 0.49 against 0.58 ms per login (lower in all 6 rounds) and logins reached 92.3%
 * against 91.6% of the raw hash ceiling. Four per message made it worse (88.7%): with 8 logins
 * in flight on 2 workers each holds 4, so a worker that answers its fourth has nothing left to
 * run until the event loop refills it, and the machine stood 3.5-4.1% idle.
 * So that every answer has a place to come from without a round trip, and a worker that answers
 * a full batch still has one job to run while the event loop hands it more, a worker holds up to
 * PIPELINE_DEPTH = REPLY_BATCH + 1 jobs.
 *
 * The worker source is inline CommonJS that loads @node-rs/argon2 by its resolved path, so it
 * needs no TypeScript loader in the worker.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { HashParams } from './password.js';

const ARGON2_PATH = createRequire(import.meta.url).resolve('@node-rs/argon2');

/**
 * The worker's program (exported for tests, which wrap it to make a worker die mid-job). It
 * writes the id of the job it is about to run into `running` (shared memory: no message, no
 * wake-up), so that when it dies the pool knows which job killed it (see `die` below).
 */
export const HASH_WORKER_SOURCE = `
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const argon2 = require(workerData.argon2Path);
const running = new Int32Array(workerData.running);
const answer = (job) => {
  Atomics.store(running, 0, job.id);
  try {
    if (job.op === 'hash') return { id: job.id, value: argon2.hashSync(job.password, job.params) };
    let ok = false;
    try { ok = argon2.verifySync(job.stored, job.password); } catch { ok = false; }
    return { id: job.id, value: ok };
  } catch (err) {
    return { id: job.id, error: String((err && err.message) || err) };
  }
};
parentPort.on('message', (job) => {
  const replies = [answer(job)];
  while (replies.length < workerData.batch) {
    const next = receiveMessageOnPort(parentPort);
    if (next === undefined) break;
    replies.push(answer(next.message));
  }
  parentPort.postMessage(replies);
});
`;

type Job =
  | { op: 'hash'; password: string; params: HashParams & { algorithm: number } }
  | { op: 'verify'; stored: string; password: string };

interface Pending {
  job: Job;
  resolve(value: string | boolean): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  /** The id of the job the worker started last (written by the worker). */
  running: Int32Array;
  /** Jobs posted to this worker and not yet answered, oldest first (the worker answers in order). */
  assigned: (Pending & { id: number })[];
}

/** Answers a worker sends in one message at most, when its next job is already waiting (see the header comment). */
const REPLY_BATCH = 3;
/** Jobs a worker holds at once: the running one, and enough waiting for a full batch after it. */
const PIPELINE_DEPTH = REPLY_BATCH + 1;

export interface HashWorkers {
  hash(password: string, params: HashParams): Promise<string>;
  /** False for a wrong password and for a malformed stored hash (never throws for those). */
  verify(stored: string, password: string): Promise<boolean>;
  close(): Promise<void>;
}

// Algorithm.Argon2id (see password.ts).
const ARGON2ID = 2;

export function createHashWorkers(size: number, workerSource: string = HASH_WORKER_SOURCE): HashWorkers {
  const queue: Pending[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;

  const start = (): Slot => {
    const running = new SharedArrayBuffer(4);
    const slot: Slot = {
      worker: new Worker(workerSource, {
        eval: true,
        workerData: { argon2Path: ARGON2_PATH, batch: REPLY_BATCH, running },
      }),
      running: new Int32Array(running),
      assigned: [],
    };
    slot.worker.unref();
    slot.worker.on('message', (replies: { id: number; value?: string | boolean; error?: string }[]) => {
      for (const m of replies) {
        const done = slot.assigned[0];
        if (done && done.id === m.id) {
          slot.assigned.shift();
          if (m.error !== undefined) done.reject(new Error(m.error));
          else done.resolve(m.value as string | boolean);
        }
      }
      pump();
      if (slot.assigned.length === 0) slot.worker.unref();
    });
    // A worker that dies fails only the job it was running: the one whose id it wrote last, or,
    // when that job was answered already (it died between jobs, or before writing the id), the
    // oldest it holds. Every other job it held goes back to the front of the queue, in order,
    // for the other workers or the fresh one that replaces this one: those waiting behind it
    // never started, and one it finished but had not yet answered (held for a batch) is run
    // again (a hash or a check gives the same verdict twice; the first answer never reached
    // anyone). 'error' is followed by 'exit'; the slot leaves `slots` at the first of them, so
    // pump() hands it nothing more.
    let dead = false;
    const die = (err: Error) => {
      if (dead) return;
      dead = true;
      const i = slots.indexOf(slot);
      if (i >= 0) slots.splice(i, 1);
      const held = slot.assigned.splice(0);
      // The shared cell is 32 bits: the worker's store wrapped the id (ToInt32), so the ids are
      // compared the same way, or past 2^31 jobs no id would ever match.
      const startedLast = Atomics.load(slot.running, 0);
      const culprit = held.find((p) => (p.id | 0) === startedLast) ?? held[0];
      culprit?.reject(err);
      queue.unshift(
        ...held.filter((p) => p !== culprit).map(({ job, resolve, reject }): Pending => ({ job, resolve, reject })),
      );
      if (closed) {
        for (const p of queue.splice(0)) p.reject(new Error('password hashing is shut down'));
        return;
      }
      slots.push(start());
      pump();
    };
    slot.worker.on('error', die);
    slot.worker.on('exit', () => die(new Error('password hashing worker stopped')));
    return slot;
  };

  /** Hands queued jobs out, each to the worker holding the fewest (idle workers first). */
  const pump = () => {
    while (queue.length > 0) {
      let target: Slot | undefined;
      for (const slot of slots)
        if (slot.assigned.length < PIPELINE_DEPTH && (!target || slot.assigned.length < target.assigned.length))
          target = slot;
      if (!target) return;
      const next = queue.shift() as Pending;
      const id = nextId++;
      target.assigned.push({ job: next.job, resolve: next.resolve, reject: next.reject, id });
      // A worker with work keeps the process alive until it answers; an idle one does not.
      target.worker.ref();
      target.worker.postMessage({ id, ...next.job });
    }
  };

  // Threads start with the first hash, not at boot: kernels that never hash (tests, embedders
  // using other sign-in methods) pay nothing.
  let started = false;
  const run = (job: Job): Promise<string | boolean> =>
    new Promise((resolve, reject) => {
      if (closed) return reject(new Error('password hashing is shut down'));
      if (!started) {
        started = true;
        for (let i = 0; i < Math.max(1, size); i++) slots.push(start());
      }
      queue.push({ job, resolve, reject });
      pump();
    });

  return {
    hash: async (password, params) =>
      (await run({ op: 'hash', password, params: { ...params, algorithm: ARGON2ID } })) as string,
    verify: async (stored, password) => (await run({ op: 'verify', stored, password })) === true,
    async close() {
      closed = true;
      for (const p of queue.splice(0)) p.reject(new Error('password hashing is shut down'));
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
