/**
 * `npm run reliability`: real servers (child processes of bin/latchkey.ts) on SQLite, PostgreSQL
 * and MariaDB with Redis, the network dependencies behind TCP proxies that refuse or stall on
 * command, and a table of what held:
 *
 * - faults: a dependency refused or blackholed (health, clean 503s, recovery without restart), and
 *   SMTP server, SMS gateway and webhook receiver slow or down (the triggering request's latency);
 * - crash: kill -9 with mail and webhook deliveries queued and in flight, during refresh-token
 *   rotation, SCIM provisioning and FGA tuple writes, then a restart and the ledger checked;
 * - soak: mixed load at 50 connections (`--soak-seconds`, default 600).
 *
 * Arguments: case names to run only those (`faults`, `peers`, `crash`, `soak`), `--soak-seconds N`,
 * `--databases sqlite,postgres,mariadb`. Not part of `npm test`: it takes minutes and the machine.
 */
import { writeFileSync } from 'node:fs';
import { crashCase } from './crash.js';
import { dependencyFaults, peerFaults } from './faults.js';
import { soakCase } from './soak.js';
import type { DbName } from './stack.js';
import { printChecks, type Check } from './table.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const named = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
const wants = (name: string) => named.length === 0 || named.includes(name);
const soakSeconds = Number(option('soak-seconds') ?? 600);
const databases = (option('databases') ?? 'sqlite,postgres,mariadb').split(',') as DbName[];

const checks: Check[] = [];
const step = async (label: string, run: () => Promise<Check[]>) => {
  process.stderr.write(`reliability: ${label}...\n`);
  try {
    checks.push(...(await run()));
  } catch (err) {
    checks.push({ case: label, target: '-', check: 'ran to the end', held: false, detail: String(err) });
  }
};

if (wants('faults')) {
  for (const db of databases.filter((d) => d !== 'sqlite')) await step(`faults ${db}`, () => dependencyFaults(db));
}
if (wants('peers')) await step('peers', peerFaults);
if (wants('crash')) for (const db of databases) await step(`crash ${db}`, () => crashCase(db));
if (wants('soak')) await step('soak', () => soakCase(soakSeconds));

const table = printChecks(checks);
process.stdout.write(`${table}\n`);
const out = option('out');
if (out) writeFileSync(out, `${table}\n`);
process.exitCode = checks.every((c) => c.held) ? 0 : 1;
