/**
 * Starts a bench server in a child process (`node --import tsx <script>`), optionally with
 * `--cpu-prof`, and waits for its one-line JSON BenchTarget. Closing stdin asks it to exit; the
 * profile is written on that clean exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchTarget } from './target.js';

export interface ChildServer {
  target: BenchTarget;
  /** CPU seconds (user + system, all threads) the child has used so far; Linux /proc only. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** utime + stime of a process from /proc/<pid>/stat (fields 14 and 15, clock ticks of 1/100 s). */
function procCpuSeconds(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

export async function startChild(script: string, opts: { cpuProfDir?: string } = {}): Promise<ChildServer> {
  const file = fileURLToPath(new URL(script, import.meta.url));
  const args = ['--import', 'tsx', ...(opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : []), file];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const target = await new Promise<BenchTarget>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 60 s: ${stderr}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(out.slice(0, nl)) as BenchTarget);
        } catch (err) {
          reject(err as Error);
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}: ${stderr}`));
    });
  });
  return {
    target,
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
