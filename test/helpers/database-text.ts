/**
 * Everything a test server's SQLite database holds, as text, to tell whether a refused call
 * wrote anything (brief, rule 3: "never a half-written record"). The audit log is left out: a
 * refused admin call is audited on purpose (plugins/audit), which is a record of the refusal,
 * not a half-made one.
 */
import type { Kernel } from '../../core/kernel.js';

export async function databaseText(kernel: Kernel): Promise<string> {
  const { statements } = kernel.storage;
  const tables = await statements.run("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", [], 'all');
  const parts: string[] = [];
  for (const { name } of tables) {
    if (typeof name !== 'string' || /audit/.test(name)) continue;
    parts.push(name, JSON.stringify(await statements.run(`SELECT * FROM "${name}" ORDER BY 1`, [], 'all')));
  }
  return parts.join('\n');
}
