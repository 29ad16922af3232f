/**
 * Bench servers run in child processes, so the load generator in this process never competes
 * with a server's event loop, and each server's CPU time per request can be read from /proc. A
 * child prints one JSON line describing itself when ready, serves until its stdin closes (a clean
 * exit, so `--cpu-prof` can write its profile) and is killed if it hangs.
 *
 * Children run Latchkey's compiled build: `npm run build` runs once per bench process, before its
 * first child starts, and every child starts with CHILD_IMPORTS (tsx for the bench's own
 * TypeScript, then compiled-build.ts, which answers every import of Latchkey's sources from dist/).
 * BENCH_NO_BUILD=1 skips the build and runs dist/ as it is.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Node flags of every bench child: the harness through tsx, Latchkey itself from dist/. */
export const CHILD_IMPORTS = ['--import', 'tsx', '--import', new URL('./compiled-build.ts', import.meta.url).href];

/** Seconds a child may take to print its ready line (BENCH_START_SECONDS). */
const START_S = Number(process.env.BENCH_START_SECONDS ?? 300);

let built = false;

/**
 * `npm run build` (bin/build.js: tsc, incremental, and the run-time assets), once per process. A
 * build that fails (a type error in the tree) stops the bench with tsc's messages.
 */
export function buildOnce(): void {
  if (built || process.env.BENCH_NO_BUILD === '1') return;
  process.stderr.write('bench: npm run build (the children run dist/)...\n');
  execFileSync(process.execPath, [fileURLToPath(new URL('../bin/build.js', import.meta.url))], {
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  built = true;
}

export interface BenchChild<T> {
  /** What the child printed when it was ready. */
  info: T;
  /** CPU seconds (user + system, every thread) the child has used so far; Linux /proc only. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** The port a server listening on a TCP address got (0 when it is not listening). */
export function portOf(server: { address(): string | { port: number } | null }): number {
  const addr = server.address();
  return typeof addr === 'object' && addr ? addr.port : 0;
}

/** utime + stime from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 1/100 s). */
export function procCpuSeconds(pid: number | undefined): number {
  return pid ? statCpuSeconds(`/proc/${pid}/stat`) : Number.NaN;
}

/**
 * The same from any stat file of that format: a process's, or one thread's
 * (/proc/<pid>/task/<tid>/stat; /proc/<tid>/stat would give the whole process). NaN when unreadable.
 */
export function statCpuSeconds(path: string): number {
  try {
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

export async function startBenchChild<T>(
  script: URL,
  opts: { args?: string[]; cpuProfDir?: string; nodeArgs?: string[] } = {},
): Promise<BenchChild<T>> {
  buildOnce();
  const file = fileURLToPath(script);
  const nodeArgs = [
    ...(opts.nodeArgs ?? []),
    ...CHILD_IMPORTS,
    ...(opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : []),
    file,
    ...(opts.args ?? []),
  ];
  const child: ChildProcess = spawn(process.execPath, nodeArgs, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const info = await new Promise<T>((resolve, reject) => {
    let out = '';
    // A loaded 2-core machine (other suites beside the bench) can take minutes to boot a server.
    // A child that did not start is killed, so it does not keep serving (and loading the machine).
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not start in ${START_S} s: ${stderr}`));
    }, START_S * 1000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.slice(0, nl)) as T);
      } catch (err) {
        reject(err as Error);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited with ${code}: ${stderr}`));
    });
  });
  return {
    info,
    cpuSeconds: () => procCpuSeconds(child.pid),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.stdin!.end();
      }),
  };
}

/** For child scripts: print the ready line, then run `close` and exit when stdin ends. */
export function serveUntilStdinCloses(info: unknown, close: () => Promise<unknown>): void {
  process.stdout.write(`${JSON.stringify(info)}\n`);
  process.stdin.resume();
  process.stdin.once('end', () => {
    void close().finally(() => process.exit(0));
  });
}
