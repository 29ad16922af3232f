/**
 * Development aid, not part of `npm run bench`: where a login's CPU goes. The raw Argon2id ceiling
 * (two threads back to back), the login floor (a bare route over the server's hash workers) and
 * Latchkey's login run in turn under wrk (8 in flight, as the bench drives them), and for each
 * run it prints the rate, the whole machine's busy CPU per operation (/proc/stat: the client, the
 * kernel and every process included) and the party's CPU per operation by thread: `main` (the
 * event loop) and the rest by thread name (`node` gathers the hash workers and V8's helpers).
 *
 *   npx tsx bench/profiling/login-cpu.ts
 *
 * Environment: ROUNDS (default 3), RUN_S seconds per run (6), WARM_S seconds of logins each HTTP
 * party answers first (20; see the bench's header on warm-up), FLAGS="name=value,..." extra
 * Latchkey flags (`memory-store=process` took the SQLite session write away, session 24),
 * BENCH_CPU_PROF=<dir> (every party writes a CPU profile; cpuprofile-summary.ts reads it).
 *
 * How to read it: the ratio to the ceiling is what the machine time per login leaves. The hash
 * costs what the ceiling row shows; 90% of the ceiling needs everything else under a ninth of it
 * (session 24: ~1.0 ms for the floor, ~1.5 ms for Latchkey, against a hash of 10.5-12.8 ms).
 * Needs wrk (Debian `wrk`).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { postJson } from '../accounts/http.js';
import { statCpuSeconds } from '../child.js';
import { startParty } from '../accounts/parties.js';
import { wrkLoad } from '../load.js';
import { hashPassword, PRODUCTION_PARAMS } from '../../plugins/users/password.js';
import { describeMachine } from '../machine.js';

console.log(`machine: ${describeMachine()}`);

const PASSWORD = 'Profiling-pass-1';
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const RUN_S = Number(process.env.RUN_S ?? 6);
const WARM_S = Number(process.env.WARM_S ?? 20);
/** Clock ticks per second in /proc (USER_HZ). */
const TICK_MS = 10;

/** Busy and total jiffies of the whole machine (the first line of /proc/stat; idle and iowait are not busy). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - fields[4], total };
}

/**
 * CPU ms of each thread of `pid` so far, by name; the thread whose id is the pid's is `main`.
 */
function threadMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const name = tid === String(pid) ? 'main' : threadName(pid, tid);
    const ms = statCpuSeconds(`/proc/${pid}/task/${tid}/stat`) * 1000;
    // NaN: the thread ended between the listing and the read.
    if (Number.isFinite(ms)) out.set(name, (out.get(name) ?? 0) + ms);
  }
  return out;
}

function threadName(pid: number, tid: string): string {
  try {
    return readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

/** Runs `load` (it answers how many operations it completed) and prints what they cost. */
async function measure(label: string, pid: number, load: () => Promise<number>): Promise<number> {
  const m0 = machineTicks();
  const t0 = threadMs(pid);
  const ops = await load();
  const m1 = machineTicks();
  const t1 = threadMs(pid);
  const perThread = [...t1]
    .map(([name, ms]) => [name, ms - (t0.get(name) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .map(([name, ms]) => `${name} ${(ms / ops).toFixed(2)}`);
  const idle = 100 - (100 * (m1.busy - m0.busy)) / (m1.total - m0.total);
  const rate = ops / RUN_S;
  console.log(
    `${label.padEnd(9)} ${rate.toFixed(1).padStart(6)}/s  machine ${(((m1.busy - m0.busy) * TICK_MS) / ops).toFixed(2)} ms/op  idle ${idle.toFixed(1)}%  | ms/op by thread: ${perThread.join(', ') || '(threads ended with the run)'}`,
  );
  return rate;
}

const stored = await hashPassword(PASSWORD, PRODUCTION_PARAMS);
const flags: Record<string, string | number> = { 'rate-limit-per-minute': 0, 'memory-store': 'database', 'jwt-secret': 'profiling-secret-0123456789abcdef0123456789' };
for (const pair of (process.env.FLAGS ?? '').split(',').filter(Boolean)) {
  const [name, value = ''] = pair.split('=');
  flags[name] = value;
}
const ceiling = await startParty({ kind: 'argon2', stored, password: PASSWORD, concurrency: availableParallelism() });
const latchkey = await startParty({ kind: 'latchkey', flags });
const headers = { origin: latchkey.origin };
await postJson(`${latchkey.url}/v1/signup`, { email: 'cpu@example.com', password: PASSWORD, confirm_password: PASSWORD }, headers);
const body = JSON.stringify({ email: 'cpu@example.com', password: PASSWORD });
const floor = await startParty({ kind: 'bare-login', stored, body: JSON.stringify(await postJson(`${latchkey.url}/v1/login`, JSON.parse(body), headers)) });
try {
  const logins = async (url: string, extra: Record<string, string>, seconds = RUN_S): Promise<number> => {
    const r = await wrkLoad({ url, method: 'POST', headers: { 'content-type': 'application/json', ...extra }, body, connections: 8, durationS: seconds });
    if (!r) throw new Error('wrk is not installed (apt-get install wrk)');
    if (r.errors > 0) throw new Error(`${url}: ${r.errors} failed logins`);
    return r.rps * seconds;
  };
  await logins(floor.url, {}, WARM_S);
  await logins(`${latchkey.url}/v1/login`, headers, WARM_S);
  const rates = { ceiling: [] as number[], floor: [] as number[], latchkey: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    rates.ceiling.push(await measure('ceiling', ceiling.pid, async () => (await ceiling.run(RUN_S, availableParallelism(), true)).rps * RUN_S));
    rates.floor.push(await measure('floor', floor.pid, () => logins(floor.url, {})));
    rates.latchkey.push(await measure('latchkey', latchkey.pid, () => logins(`${latchkey.url}/v1/login`, headers)));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`of the ceiling: floor ${((100 * mean(rates.floor)) / mean(rates.ceiling)).toFixed(1)}%, latchkey ${((100 * mean(rates.latchkey)) / mean(rates.ceiling)).toFixed(1)}%`);
} finally {
  await Promise.all([ceiling.close(), latchkey.close(), floor.close()]);
}
