/** Benchmark rows and the table the runner prints. */
import { describeMachine } from './machine.js';

export interface Row {
  section: string;
  name: string;
  value: number;
  unit: string;
  /** What this row is compared with, measured in the same run. */
  reference?: string;
  /** value / reference value, when a reference exists. */
  ratio?: number;
  note?: string;
}

export function printTable(
  rows: readonly Row[],
  out: (s: string) => void = (s) => process.stdout.write(`${s}\n`),
): void {
  const head = ['section', 'measurement', 'value', 'unit', 'reference', 'ratio', 'note'];
  const body = rows.map((r) => [
    r.section,
    r.name,
    r.value >= 100 ? r.value.toFixed(0) : r.value.toFixed(3),
    r.unit,
    r.reference ?? '',
    r.ratio === undefined ? '' : `${(r.ratio * 100).toFixed(0)}%`,
    r.note ?? '',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  out(line(head));
  out(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) out(line(b));
  out('');
  out(`machine: ${describeMachine()}`);
}
