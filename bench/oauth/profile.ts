/**
 * Summarizes a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by where the
 * code lives (a package, Node internals, this project's folder), counting only samples taken
 * inside a time window (the load phase, not the start-up's key generation and password hashing).
 * Timestamps are CLOCK_MONOTONIC microseconds on Linux, the clock of process.hrtime.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  samples: number;
  /** [label, share of samples] best first. */
  functions: [string, number][];
  places: [string, number][];
}

function placeOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const m = /\/(core|plugins\/[^/]+|transports\/[^/]+|storage|bench|test)\//.exec(url);
  return m ? m[1] : url.split('/').slice(-2).join('/');
}

function top(counts: Map<string, number>, total: number, n: number): [string, number][] {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => [k, v / total]);
}

export function summarizeProfile(file: string, windowUs?: [number, number], n = 12): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const fns = new Map<string, number>();
  const places = new Map<string, number>();
  const count = (inWindow: (t: number) => boolean): number => {
    fns.clear();
    places.clear();
    let t = p.startTime;
    let total = 0;
    for (let i = 0; i < p.samples.length; i++) {
      t += p.timeDeltas[i];
      if (!inWindow(t)) continue;
      const node = byId.get(p.samples[i]);
      if (!node) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      if (functionName === '(idle)') continue;
      total++;
      const short = url ? `${url.split('/').slice(-1)[0]}:${lineNumber + 1}` : '';
      const label = `${functionName || '(anonymous)'}${short ? ` ${short}` : ''}`;
      fns.set(label, (fns.get(label) ?? 0) + 1);
      const place = placeOf(url, functionName);
      places.set(place, (places.get(place) ?? 0) + 1);
    }
    return total;
  };
  let total = windowUs ? count((t) => t >= windowUs[0] && t <= windowUs[1]) : 0;
  if (total === 0) total = count(() => true);
  return { samples: total, functions: top(fns, total || 1, n), places: top(places, total || 1, n) };
}

export const formatShares = (entries: [string, number][]): string =>
  entries.map(([k, v]) => `${k} ${(v * 100).toFixed(1)}%`).join('; ');
