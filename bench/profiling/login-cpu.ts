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
 * party answers first (20; see the bench's header on warm-up), ACCOUNTS (64) accounts the logins
 * take in turn (1: all on one account, which the per-account hash gate holds to 5 at once), FLAGS="name=value,..." extra
 * Latchkey flags (`memory-store=process` takes the SQLite session write away),
 * BENCH_CPU_PROF=<dir> (every party writes a CPU profile; cpuprofile-summary.ts reads it),
 * AGAINST=<another checkout of Latchkey, with node_modules or a link to these> (that checkout's
 * server, with the same flags, takes the floor's place, labelled AGAINST, and the two servers
 * take turns going first: an A/B of two versions of the login path; AGAINST=. is this checkout),
 * AGAINST_NODE_ARGS="--flag ..." node flags for the AGAINST server alone (an A/B of node flags
 * with AGAINST=.).
 *
 * How to read it: the ratio to the ceiling is what the machine time per login leaves. The hash
 * costs what the ceiling row shows; 90% of the ceiling needs everything else under a ninth of it
 * (for example ~1.0 ms for the floor, ~1.5 ms for Latchkey, against a hash of 10.5-12.8 ms).
 * Each round's line ends with context switches per login (/proc/<pid>/task/<tid>/status): how often
 * the main thread went to sleep (an event-loop wake-up each, roughly) and how often the other
 * threads (the hash workers above all) were pushed off their core (for example, Latchkey's main
 * thread sleeping 1.2 times per login, the floor's 0.65, and both servers' workers preempted
 * ~3.8 times per login).
 * The closing lines give each party's means over the rounds; compare those, not single rounds: two
 * servers of the same build can differ by up to 1 ms per login in their hash workers' CPU (6 s
 * rounds), more than most changes to the event loop's part.
 * Needs wrk (Debian `wrk`).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { postJson } from '../accounts/http.js';
import { statCpuSeconds } from '../child.js';
import { startCheckoutParty, startParty, type Party } from '../accounts/parties.js';
import { wrkLoad } from '../load.js';
import { hashPassword, PRODUCTION_PARAMS } from '../../plugins/users/password.js';
import { describeMachine } from '../machine.js';

console.log(`machine: ${describeMachine()}`);

const PASSWORD = 'Profiling-pass-1';
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const RUN_S = Number(process.env.RUN_S ?? 6);
const WARM_S = Number(process.env.WARM_S ?? 20);
/** Accounts the logins take in turn (the bench's login row: LOGIN_ACCOUNTS); 1 is every login on one account. */
const ACCOUNTS = Number(process.env.ACCOUNTS ?? 64);
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

/**
 * Context switches of `pid` so far: the main thread's voluntary ones (it went to sleep: one per
 * event-loop wake-up, roughly) and every other thread's involuntary ones (preempted: a hash worker
 * pushed off its core by another thread).
 */
function switches(pid: number): { mainWakes: number; othersPreempted: number } {
  let mainWakes = 0;
  let othersPreempted = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let status = '';
    try {
      status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    } catch {
      continue;
    }
    const count = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    if (tid === String(pid)) mainWakes += count('voluntary_ctxt_switches');
    else othersPreempted += count('nonvoluntary_ctxt_switches');
  }
  return { mainWakes, othersPreempted };
}

function threadName(pid: number, tid: string): string {
  try {
    return readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

/** Each party's sums over its rounds: operations, machine ms, and ms by thread. */
const totals = new Map<string, { ops: number; machineMs: number; rounds: number; threads: Map<string, number> }>();

/** Runs `load` (it answers how many operations it completed), prints what they cost and adds it to `totals`. */
async function measure(label: string, pid: number, load: () => Promise<number>): Promise<number> {
  const m0 = machineTicks();
  const t0 = threadMs(pid);
  const s0 = switches(pid);
  const ops = await load();
  const m1 = machineTicks();
  const t1 = threadMs(pid);
  const s1 = switches(pid);
  const used = [...t1].map(([name, ms]) => [name, ms - (t0.get(name) ?? 0)] as const).filter(([, ms]) => ms > 0);
  const perThread = used.map(([name, ms]) => `${name} ${(ms / ops).toFixed(2)}`);
  const sum = totals.get(label) ?? { ops: 0, machineMs: 0, rounds: 0, threads: new Map<string, number>() };
  sum.ops += ops;
  sum.machineMs += (m1.busy - m0.busy) * TICK_MS;
  sum.rounds++;
  for (const [name, ms] of used) sum.threads.set(name, (sum.threads.get(name) ?? 0) + ms);
  totals.set(label, sum);
  const idle = 100 - (100 * (m1.busy - m0.busy)) / (m1.total - m0.total);
  const rate = ops / RUN_S;
  const wakes = ((s1.mainWakes - s0.mainWakes) / ops).toFixed(2);
  const preempted = ((s1.othersPreempted - s0.othersPreempted) / ops).toFixed(2);
  console.log(
    `${label.padEnd(9)} ${rate.toFixed(1).padStart(6)}/s  machine ${(((m1.busy - m0.busy) * TICK_MS) / ops).toFixed(2)} ms/op  idle ${idle.toFixed(1)}%  | ms/op by thread: ${perThread.join(', ') || '(threads ended with the run)'}  | per op: main sleeps ${wakes}, others preempted ${preempted}`,
  );
  return rate;
}

const stored = await hashPassword(PASSWORD, PRODUCTION_PARAMS);
const flags: Record<string, string | number> = {
  'rate-limit-per-minute': 0,
  'memory-store': 'database',
  'jwt-secret': 'profiling-secret-0123456789abcdef0123456789',
};
for (const pair of (process.env.FLAGS ?? '').split(',').filter(Boolean)) {
  const [name, value = ''] = pair.split('=');
  flags[name] = value;
}
const ceiling = await startParty({ kind: 'argon2', stored, password: PASSWORD, concurrency: availableParallelism() });
const latchkey = await startParty({ kind: 'latchkey', flags });

const servers: [string, Party][] = [['latchkey', latchkey]];
const against = process.env.AGAINST;
const againstNodeArgs = (process.env.AGAINST_NODE_ARGS ?? '').split(' ').filter(Boolean);
if (against) servers.push(['AGAINST', await startCheckoutParty(against, flags, againstNodeArgs)]);
const emails = Array.from({ length: ACCOUNTS }, (_, i) => `cpu${i}@example.com`);
const bodies = emails.map((email) => JSON.stringify({ email, password: PASSWORD }));
let answer: Record<string, unknown> = {};
for (const [, server] of servers) {
  const headers = { origin: server.origin };
  for (const email of emails)
    await postJson(`${server.url}/v1/signup`, { email, password: PASSWORD, confirm_password: PASSWORD }, headers);
  answer = await postJson(`${server.url}/v1/login`, JSON.parse(bodies[0]), headers);
}
// Without AGAINST, the floor answers with a login response of the same size.
const floor = against ? undefined : await startParty({ kind: 'bare-login', stored, body: JSON.stringify(answer) });
try {
  const logins = async (url: string, extra: Record<string, string>, seconds = RUN_S): Promise<number> => {
    const r = await wrkLoad({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...extra },
      bodies,
      connections: 8,
      durationS: seconds,
    });
    if (!r) throw new Error('wrk is not installed (apt-get install wrk)');
    if (r.errors > 0) throw new Error(`${url}: ${r.errors} failed logins`);
    return r.rps * seconds;
  };
  if (floor) await logins(floor.url, {}, WARM_S);
  for (const [, server] of servers) await logins(`${server.url}/v1/login`, { origin: server.origin }, WARM_S);
  for (let round = 0; round < ROUNDS; round++) {
    await measure(
      'ceiling',
      ceiling.pid,
      async () => (await ceiling.run(RUN_S, availableParallelism(), true)).rps * RUN_S,
    );
    if (floor) await measure('floor', floor.pid, () => logins(floor.url, {}));
    // Two servers take turns going first, so neither always follows the ceiling.
    const turn = round % 2 === 0 ? servers : [...servers].reverse();
    for (const [label, server] of turn)
      await measure(label, server.pid, () => logins(`${server.url}/v1/login`, { origin: server.origin }));
  }
  const ceilingSum = totals.get('ceiling');
  const ceilingRate = ceilingSum ? ceilingSum.ops / ceilingSum.rounds / RUN_S : 0;
  for (const [label, sum] of totals) {
    const byThread = [...sum.threads].map(([name, ms]) => `${name} ${(ms / sum.ops).toFixed(3)}`).join(', ');
    const rate = sum.ops / sum.rounds / RUN_S;
    const share = label === 'ceiling' ? '' : ` (${((100 * rate) / ceilingRate).toFixed(1)}% of the ceiling)`;
    console.log(
      `mean ${label.padEnd(9)} ${rate.toFixed(1).padStart(6)}/s${share}  machine ${(sum.machineMs / sum.ops).toFixed(2)} ms/op  | ms/op by thread: ${byThread}`,
    );
  }
} finally {
  await Promise.all([ceiling.close(), floor?.close(), ...servers.map(([, server]) => server.close())]);
}
