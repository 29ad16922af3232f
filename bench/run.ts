/**
 * `npm run bench`: every section's rows in one table. Each section measures its own reference in
 * the same run (bare Fastify, raw crypto, a peer library). Sections that are not present in this
 * checkout are reported as missing rather than skipped silently.
 */
import { existsSync } from 'node:fs';
import { printTable, type Row } from './table.js';

type Section = { name: string; file: string; fn: string };
const sections: Section[] = [
  { name: 'kernel', file: './kernel/index.ts', fn: 'runKernelBench' },
  { name: 'accounts', file: './accounts/index.ts', fn: 'runAccountsBench' },
  { name: 'fga', file: './fga/index.ts', fn: 'runFgaBench' },
  { name: 'oauth', file: './oauth/index.ts', fn: 'runOauthBench' },
];

const only = process.argv.slice(2);
const rows: Row[] = [];
for (const s of sections) {
  if (only.length > 0 && !only.includes(s.name)) continue;
  if (!existsSync(new URL(s.file, import.meta.url))) {
    rows.push({ section: s.name, name: 'not built yet', value: 0, unit: '-' });
    continue;
  }
  process.stderr.write(`bench: ${s.name}...\n`);
  const mod = (await import(s.file)) as Record<string, () => Promise<Row[]>>;
  rows.push(...(await mod[s.fn]()));
}
printTable(rows);
