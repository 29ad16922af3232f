/**
 * Development aid: self time by function (and by file) in a V8 `.cpuprofile`, optionally within a
 * window of seconds from the profile's start, and the share of samples under named functions.
 *
 *   npx tsx bench/profiling/cpuprofile-summary.ts <file> [--from S --to S] [--top N] [--under fnA,fnB]
 *   npx tsx bench/profiling/cpuprofile-summary.ts <file> --timeline   (busy share per second, to find the windows)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    top: { type: 'string' },
    under: { type: 'string' },
    timeline: { type: 'boolean' },
  },
});
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const where = (url: string) =>
  url
    .replace(/^.*\/node_modules\//, 'nm/')
    .replace(/^file:\/\/.*?\/(core|plugins|storage|transports|bench|test)\//, '$1/');
const nameOf = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const times: number[] = [];
let t = 0;
for (const d of profile.timeDeltas) times.push((t += d));

if (values.timeline) {
  const buckets = new Map<number, [number, number]>();
  profile.samples.forEach((id, i) => {
    const s = Math.floor(times[i] / 1e6);
    const b = buckets.get(s) ?? [0, 0];
    b[1]++;
    if (byId.get(id)!.callFrame.functionName !== '(idle)') b[0]++;
    buckets.set(s, b);
  });
  console.log([...buckets].map(([s, [busy, all]]) => `${s}s:${Math.round((100 * busy) / all)}%`).join(' '));
} else {
  const from = Number(values.from ?? 0) * 1e6;
  const to = values.to === undefined ? Infinity : Number(values.to) * 1e6;
  const under = (values.under ?? '').split(',').filter(Boolean);
  const self = new Map<string, number>();
  const byFile = new Map<string, number>();
  const inside = new Map(under.map((f) => [f, 0]));
  let total = 0;
  profile.samples.forEach((id, i) => {
    if (times[i] < from || times[i] >= to) return;
    const d = profile.timeDeltas[i];
    const node = byId.get(id)!;
    total += d;
    self.set(nameOf(node), (self.get(nameOf(node)) ?? 0) + d);
    const file = where(node.callFrame.url) || node.callFrame.functionName;
    byFile.set(file, (byFile.get(file) ?? 0) + d);
    if (under.length === 0) return;
    const stack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      stack.add(byId.get(at)!.callFrame.functionName);
    for (const f of under) if (stack.has(f)) inside.set(f, inside.get(f)! + d);
  });
  const top = Number(values.top ?? 40);
  const show = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .forEach(([k, v]) => console.log(((100 * v) / total).toFixed(1).padStart(5), k));
  console.log(`${(total / 1000).toFixed(0)} ms sampled`);
  show(self);
  console.log('--- by file');
  show(byFile);
  for (const [f, v] of inside) console.log(`under ${f}: ${((100 * v) / total).toFixed(1)}%`);
}
