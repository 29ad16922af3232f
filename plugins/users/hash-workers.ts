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
 * The worker source is inline CommonJS that loads @node-rs/argon2 by its resolved path, so it
 * needs no TypeScript loader in the worker.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { HashParams } from './password.js';

const ARGON2_PATH = createRequire(import.meta.url).resolve('@node-rs/argon2');

/** The worker's program (exported for tests, which wrap it to make a worker die mid-job). */
export const HASH_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const argon2 = require(workerData.argon2Path);
parentPort.on('message', (job) => {
  let reply;
  try {
    if (job.op === 'hash') reply = { id: job.id, value: argon2.hashSync(job.password, job.params) };
    else {
      let ok = false;
      try { ok = argon2.verifySync(job.stored, job.password); } catch { ok = false; }
      reply = { id: job.id, value: ok };
    }
  } catch (err) {
    reply = { id: job.id, error: String((err && err.message) || err) };
  }
  parentPort.postMessage(reply);
});
`;

type Job = { op: 'hash'; password: string; params: HashParams & { algorithm: number } } | { op: 'verify'; stored: string; password: string };

interface Pending {
  job: Job;
  resolve(value: string | boolean): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  /** Jobs posted to this worker and not yet answered, oldest first (the worker answers in order). */
  assigned: (Pending & { id: number })[];
}

/** Jobs a worker holds at once: the running one and the next (see the header comment). */
const PIPELINE_DEPTH = 2;

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
    const slot: Slot = { worker: new Worker(workerSource, { eval: true, workerData: { argon2Path: ARGON2_PATH } }), assigned: [] };
    slot.worker.unref();
    slot.worker.on('message', (m: { id: number; value?: string | boolean; error?: string }) => {
      const done = slot.assigned[0];
      if (done && done.id === m.id) {
        slot.assigned.shift();
        if (m.error !== undefined) done.reject(new Error(m.error));
        else done.resolve(m.value as string | boolean);
      }
      pump();
      if (slot.assigned.length === 0) slot.worker.unref();
    });
    // A worker that dies fails only the job it was running. The job waiting behind it (see
    // PIPELINE_DEPTH) never started: it goes back to the front of the queue, for the other
    // workers or the fresh one that replaces this one. 'error' is followed by 'exit'; the slot
    // leaves `slots` at the first of them, so pump() hands it nothing more.
    let dead = false;
    const die = (err: Error) => {
      if (dead) return;
      dead = true;
      const i = slots.indexOf(slot);
      if (i >= 0) slots.splice(i, 1);
      const [running, ...waiting] = slot.assigned.splice(0);
      running?.reject(err);
      queue.unshift(...waiting.map(({ job, resolve, reject }): Pending => ({ job, resolve, reject })));
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
      for (const slot of slots) if (slot.assigned.length < PIPELINE_DEPTH && (!target || slot.assigned.length < target.assigned.length)) target = slot;
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
    hash: async (password, params) => (await run({ op: 'hash', password, params: { ...params, algorithm: ARGON2ID } })) as string,
    verify: async (stored, password) => (await run({ op: 'verify', stored, password })) === true,
    async close() {
      closed = true;
      for (const p of queue.splice(0)) p.reject(new Error('password hashing is shut down'));
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
