/**
 * argv -> flag values: kebab-case names only; legacy snake_case
 * names and env files are refused with a message that says what to use instead.
 */
import type { FlagDeclaration, FlagValue } from '../../core/config.js';

export class CliError extends Error {}

export interface ParsedArgs {
  help: boolean;
  values: Record<string, FlagValue>;
}

const LEGACY_ENV_FILE = new Set(['env_file', 'env-file']);

function parseValue(decl: FlagDeclaration, raw: string): FlagValue {
  switch (decl.type) {
    case 'boolean':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw new CliError(`--${decl.name} takes true or false; got "${raw}"`);
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new CliError(`--${decl.name} takes a number; got "${raw}"`);
      return n;
    }
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
    default:
      if (decl.choices && raw !== '' && !decl.choices.includes(raw)) {
        throw new CliError(`--${decl.name} must be one of ${decl.choices.join(', ')}; got "${raw}"`);
      }
      return raw;
  }
}

export function parseArgs(argv: readonly string[], decls: readonly FlagDeclaration[]): ParsedArgs {
  const byName = new Map(decls.map((d) => [d.name, d]));
  const values: Record<string, FlagValue> = {};
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === '--help' || token === '-h') {
      help = true;
      continue;
    }
    if (token === 'mcp')
      throw new CliError(
        'the "mcp" subcommand was removed in 2.5.0; start the server with --mcp-enabled and use POST /mcp',
      );
    if (!token.startsWith('--'))
      throw new CliError(`unexpected argument "${token}" (flags look like --name value; see --help)`);
    const eq = token.indexOf('=');
    const name = token.slice(2, eq === -1 ? undefined : eq);
    if (LEGACY_ENV_FILE.has(name)) {
      throw new CliError(
        `--${name} is not supported: configuration is given only as command-line flags, nothing is read from env files`,
      );
    }
    if (name.includes('_')) {
      const kebab = name.replace(/_/g, '-');
      const hint = byName.has(kebab) ? ` (use --${kebab})` : '';
      throw new CliError(`--${name} is not accepted: flag names are kebab-case${hint}`);
    }
    const decl = byName.get(name);
    if (!decl) throw new CliError(`unknown flag --${name} (see --help)`);
    let raw: string;
    if (eq !== -1) raw = token.slice(eq + 1);
    else if (decl.type === 'boolean') {
      const next = argv[i + 1];
      if (next === 'true' || next === 'false') {
        raw = next;
        i++;
      } else raw = 'true';
    } else {
      const next = argv[i + 1];
      if (next === undefined || /^--[a-z]/i.test(next)) throw new CliError(`--${name} needs a value`);
      raw = next;
      i++;
    }
    values[name] = parseValue(decl, raw);
  }
  return { help, values };
}
