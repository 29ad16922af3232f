/**
 * What the numbers were measured on, printed under every bench table. The rows' ratios move with
 * the machine, not only with the code: on this project's 2-core VMs an AMD EPYC host (L3 32 MiB)
 * and an Intel Xeon host (L3 300 MiB shared) gave the same build's cold HS256 token rows 88-98%
 * of the bare route on the AMD host and 62-67% on the Intel one (part of that a warm-up the bench
 * no longer times: accounts/index.ts TOKEN_WARM_S), so a table is only comparable with one measured on the same kind of CPU.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { cpus } from 'node:os';

/** `L2 2048K, L3 307200K shared by 0-1` for CPU 0, from sysfs; empty where sysfs has no cache list. */
function caches(): string {
  const dir = '/sys/devices/system/cpu/cpu0/cache';
  try {
    return readdirSync(dir)
      .filter((d) => d.startsWith('index'))
      .map((d) => {
        const read = (f: string) => readFileSync(`${dir}/${d}/${f}`, 'utf8').trim();
        return {
          level: Number(read('level')),
          type: read('type'),
          size: read('size'),
          shared: read('shared_cpu_list'),
        };
      })
      .filter((c) => c.level >= 2 && c.type !== 'Instruction')
      .map(
        (c) =>
          `L${c.level} ${c.size}${c.shared.includes('-') || c.shared.includes(',') ? ` shared by cpus ${c.shared}` : ''}`,
      )
      .join(', ');
  } catch {
    return '';
  }
}

export function describeMachine(): string {
  const list = cpus();
  const cache = caches();
  return `${list.length} cores, ${list[0]?.model ?? 'unknown CPU'}${cache ? ` (${cache})` : ''}, Node ${process.version}`;
}

/** The machine's CPU time counters from the first line of /proc/stat, in clock ticks; undefined where there is none. */
function cpuTicks(): { steal: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user and nice).
    const t = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (t.length < 8 || t.some((x) => !Number.isFinite(x))) return undefined;
    return { steal: t[7], total: t.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

/**
 * Starts a meter of the machine's steal time: the returned function gives the share of CPU time
 * since the start that the hypervisor gave to other guests instead of this VM (NaN where
 * /proc/stat is missing or no tick passed). Why: on 2026-12-03 this project's 2-core VM lost
 * 3-42% of its CPU time to steal from one 2 s sample to the next under bench load (vmstat), so
 * a row's rate says as much about the host's other tenants as about the code; the tables say how
 * much was taken while each row ran.
 */
export function stealMeter(): () => number {
  const start = cpuTicks();
  return () => {
    const now = cpuTicks();
    if (!start || !now || now.total <= start.total) return Number.NaN;
    return (now.steal - start.steal) / (now.total - start.total);
  };
}
