/**
 * Starting the bench's measured parties as child processes (see child.ts) and comparing two of
 * them fairly on a shared, noisy 2-core machine: the runs of a subject and its reference are
 * interleaved, in an order reversed every other round (ref, subject, subject, ref, ...), and each
 * side's mean is reported, so a burst of background load hits both sides rather than one and a
 * drift over the rounds lands on both alike.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOnce, CHILD_IMPORTS, procCpuSeconds } from '../child.js';
import { stealMeter } from '../machine.js';
import type { LoadResult } from '../load.js';
import type { ChildSpec } from './child.js';
import type { VerifiedCacheStats } from '../../plugins/tokens/types.js';

export interface Party {
  pid: number;
  url: string;
  /** The `--url` of a Latchkey party (Origin header for the CSRF rule). */
  origin: string;
  /** Raw hash only: runs it for `seconds` in the child, `concurrency` in flight on libuv's pool, or on that many threads back to back. */
  run(seconds: number, concurrency?: number, threads?: boolean): Promise<LoadResult>;
  /** Latchkey only: `n` distinct access tokens of one new session of the user. */
  mint(n: number, email: string): Promise<string[]>;
  /** Latchkey only: writes `stored` as the user's password hash, straight into its row. */
  storeHash(email: string, stored: string): Promise<void>;
  /** Latchkey only: its verified-token cache's counters since start (TokensService.verifiedCacheStats). */
  cacheStats(): Promise<VerifiedCacheStats>;
  close(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));

/** Node flags for every child: BENCH_CPU_PROF=<dir> (CPU profiles), BENCH_NODE_ARGS="--trace-gc ..." (a development aid). */
function profileArgs(): string[] {
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return extra;
  mkdirSync(dir, { recursive: true });
  return [...extra, '--cpu-prof', `--cpu-prof-dir=${dir}`];
}

function waitExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

export interface ProcessOptions {
  /** The folder the process runs in. */
  cwd?: string;
  /**
   * A program that runs node with the arguments it is given, instead of node itself
   * (bench/profiling/callgrind-requests.ts passes a wrapper that runs node under valgrind).
   */
  execPath?: string;
}

/** Forks a node process running `script` and resolves once it reports ready. */
export function startProcess(
  script: string,
  args: string[],
  execArgv: string[],
  { cwd, execPath }: ProcessOptions = {},
): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  const child = fork(script, args, {
    execArgv: [...execArgv, ...profileArgs()],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...(cwd ? { cwd } : {}),
    ...(execPath ? { execPath } : {}),
  });
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${script} exited with ${code} before it was ready`));
    child.once('exit', onExit);
    child.once('message', (m: Record<string, unknown>) => {
      child.off('exit', onExit);
      resolve({ child, ready: m });
    });
  });
}

/** A party of this checkout, on its compiled build (child.ts CHILD_IMPORTS). */
export async function startParty(spec: ChildSpec): Promise<Party> {
  buildOnce();
  const { child, ready } = await startProcess(CHILD, [JSON.stringify(spec)], CHILD_IMPORTS);
  return partyOf(child, ready);
}

/**
 * A party as a checkout builds it (`AGAINST=` of the profiling aids): that checkout's own bench
 * child, run from its folder on that checkout's sources (through tsx, not a build). The checkout
 * needs node_modules (or a link to these). `execArgv` are node flags before `--import tsx`;
 * `execPath` as for startProcess.
 */
export async function startCheckoutChild(
  checkout: string,
  spec: ChildSpec,
  options: { execArgv?: string[]; execPath?: string } = {},
): Promise<Party> {
  const root = resolve(checkout);
  const script = join(root, 'bench/accounts/child.ts');
  if (!existsSync(script)) throw new Error(`${checkout}: no bench/accounts/child.ts there (not a Latchkey checkout?)`);
  if (!existsSync(join(root, 'node_modules')))
    throw new Error(`${checkout}: no node_modules there (npm ci, or link this checkout's)`);
  const { child, ready } = await startProcess(
    script,
    [JSON.stringify(spec)],
    [...(options.execArgv ?? []), '--import', 'tsx'],
    { cwd: root, execPath: options.execPath },
  );
  return partyOf(child, ready);
}

/** A Latchkey server as another checkout builds it, with these flags (`AGAINST=`) and node flags. */
export function startCheckoutParty(
  checkout: string,
  flags: Record<string, string | number | boolean | undefined>,
  execArgv: string[] = [],
): Promise<Party> {
  return startCheckoutChild(checkout, { kind: 'latchkey', flags }, { execArgv });
}

export function partyOf(child: ChildProcess, ready: Record<string, unknown>): Party {
  return {
    pid: child.pid ?? 0,
    url: String(ready.url ?? ''),
    origin: String(ready.origin ?? ready.url ?? ''),
    run: (seconds, concurrency, threads) =>
      new Promise((resolve) => {
        child.once('message', (m: { result: LoadResult }) => resolve(m.result));
        child.send({ run: seconds, ...(concurrency ? { concurrency } : {}), ...(threads ? { threads } : {}) });
      }),
    mint: (n, email) =>
      new Promise((resolve) => {
        child.once('message', (m: { tokens: string[] }) => resolve(m.tokens));
        child.send({ mint: n, email });
      }),
    storeHash: (email, stored) =>
      new Promise((resolve, reject) => {
        child.once('message', (m: { stored: boolean; error?: string }) =>
          m.stored ? resolve() : reject(new Error(`storeHash ${email}: ${m.error}`)),
        );
        child.send({ storeHash: stored, email });
      }),
    cacheStats: () =>
      new Promise((resolve, reject) => {
        child.once('message', (m: { cacheStats: VerifiedCacheStats | null }) =>
          m.cacheStats ? resolve(m.cacheStats) : reject(new Error('cacheStats: not a Latchkey party')),
        );
        child.send('cacheStats');
      }),
    async close() {
      if (child.connected) child.send('close');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await waitExit(child);
      clearTimeout(timer);
    },
  };
}

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

function mean(results: LoadResult[]): LoadResult {
  const n = results.length;
  const cpu = results.filter((r) => r.cpuUs !== undefined);
  const steal = results.filter((r) => r.stealShare !== undefined && Number.isFinite(r.stealShare));
  return {
    rps: results.reduce((s, r) => s + r.rps, 0) / n,
    p99ms: Math.max(...results.map((r) => r.p99ms)),
    errors: results.reduce((s, r) => s + r.errors, 0),
    ...(cpu.length > 0 ? { cpuUs: cpu.reduce((s, r) => s + r.cpuUs!, 0) / cpu.length } : {}),
    ...(steal.length > 0 ? { stealShare: steal.reduce((s, r) => s + r.stealShare!, 0) / steal.length } : {}),
    roundRps: results.map((r) => r.rps),
  };
}

/**
 * `run` with the CPU `party` spent per request during it: with the load generator on the same
 * cores, a rate ratio alone can hide a slower server behind a saturated client, so the token
 * rows show both.
 */
export async function withServerCpu(
  party: Pick<Party, 'pid'>,
  durationS: number,
  run: () => Promise<LoadResult>,
): Promise<LoadResult> {
  const before = procCpuSeconds(party.pid);
  const result = await run();
  const used = procCpuSeconds(party.pid) - before;
  const requests = result.rps * durationS;
  return requests > 0 && Number.isFinite(used) ? { ...result, cpuUs: (used * 1e6) / requests } : result;
}

/**
 * Interleaves the measurements: `rounds` rounds of every one of `runs`, in the given order in
 * even rounds and reversed in odd ones (a, b, c, c, b, a, ...). Returns each one's mean
 * throughput and worst p99 over its rounds, and the machine's mean steal share while it ran.
 *
 * Why reversed: in one order the first run of a round is always measured a few seconds before
 * the last, and on this VM the speed drifts within minutes (steal time moved between 3% and 42%
 * of the CPU from one 2 s sample to the next on 2026-12-03), so a steady drift would always
 * favour the same side; with the order turned every other round each run's mean position in
 * time is the same. Give a subject next to its reference (`ref, subject, ref2, subject2`) and
 * the two stay neighbours in both orders.
 */
export async function interleaved(runs: (() => Promise<LoadResult>)[], rounds = ROUNDS): Promise<LoadResult[]> {
  const all: LoadResult[][] = runs.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = runs.map((_, i) => (r % 2 === 0 ? i : runs.length - 1 - i));
    for (const i of order) {
      const steal = stealMeter();
      const result = await runs[i]();
      all[i].push({ ...result, stealShare: steal() });
    }
  }
  return all.map(mean);
}

/**
 * The lowest and highest ratio of a subject's rate to its reference's over their rounds, round
 * by round, or undefined when either has no rounds. Why: a subject and its reference run next
 * to each other in every round, so a round's ratio compares them under one state of the machine;
 * the spread shows how far one run's mean could have landed from another's on the same code.
 */
export function roundRatioSpread(subject: LoadResult, reference: LoadResult): { min: number; max: number } | undefined {
  const b = reference.roundRps ?? [];
  const ratios = (subject.roundRps ?? [])
    .slice(0, b.length)
    .map((x, i) => x / b[i])
    .filter(Number.isFinite);
  return ratios.length === 0 ? undefined : { min: Math.min(...ratios), max: Math.max(...ratios) };
}
