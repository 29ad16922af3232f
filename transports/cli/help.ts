/** `--help`, generated from the plugins' flag declarations and grouped by plugin. */
import type { AnyPlugin } from '../../core/plugin.js';
import type { FlagDeclaration } from '../../core/config.js';

function describe(f: FlagDeclaration): string {
  const kind =
    f.type === 'boolean'
      ? ''
      : f.type === 'list'
        ? ' <a,b,...>'
        : f.choices
          ? ` <${f.choices.join('|')}>`
          : ` <${f.type}>`;
  const def =
    f.secret || f.default === undefined || (Array.isArray(f.default) && f.default.length === 0)
      ? ''
      : ` (default: ${Array.isArray(f.default) ? f.default.join(',') : String(f.default)})`;
  const req = f.required ? ' [required]' : '';
  return `  --${f.name}${kind}\n      ${f.description}${def}${req}`;
}

export function helpText(plugins: readonly AnyPlugin[]): string {
  const lines = [
    'Usage: latchkey [flags]',
    '',
    'Every setting is a command-line flag; nothing is read from env files.',
    '',
  ];
  for (const p of plugins) {
    if (!p.flags || p.flags.length === 0) continue;
    lines.push(`${p.name}: ${p.description}`);
    for (const f of p.flags) lines.push(describe(f));
    lines.push('');
  }
  return lines.join('\n');
}
