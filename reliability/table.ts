/** The rows the harness prints: one check each, whether it held, and the numbers behind it. */
export interface Check {
  case: string;
  target: string;
  check: string;
  held: boolean;
  detail: string;
}

export function printChecks(checks: Check[]): string {
  const head = ['case', 'target', 'check', 'held', 'measured'];
  const rows = checks.map((c) => [c.case, c.target, c.check, c.held ? 'yes' : 'NO', c.detail]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
