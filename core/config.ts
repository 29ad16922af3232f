/**
 * Flag declarations and the parsed configuration. Plugins own their flags; the CLI
 * parses argv against the union of declarations and `--help` is generated from them.
 */
export type FlagType = 'string' | 'boolean' | 'number' | 'list';
export type FlagValue = string | boolean | number | string[];

export interface FlagDeclaration {
  /** kebab-case name without the leading dashes, exactly as the command line spells it. */
  name: string;
  type: FlagType;
  description: string;
  default?: FlagValue;
  /** Checked by the CLI before start; plugins may apply richer rules in `validateConfig`. */
  required?: boolean;
  /** Never printed back (help shows no default, logs redact). */
  secret?: boolean;
  /** Allowed values for string flags. */
  choices?: readonly string[];
}

export class Config {
  private readonly values: Map<string, FlagValue>;

  constructor(values: Record<string, FlagValue | undefined> | Map<string, FlagValue> = {}) {
    this.values = new Map();
    const entries = values instanceof Map ? values.entries() : Object.entries(values);
    for (const [k, v] of entries) if (v !== undefined) this.values.set(k, v);
  }

  has(name: string): boolean {
    const v = this.values.get(name);
    return v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0);
  }

  raw(name: string): FlagValue | undefined {
    return this.values.get(name);
  }

  string(name: string): string | undefined;
  string(name: string, fallback: string): string;
  string(name: string, fallback?: string): string | undefined {
    const v = this.values.get(name);
    if (v === undefined) return fallback;
    if (Array.isArray(v)) return v.join(',');
    return String(v);
  }

  bool(name: string, fallback = false): boolean {
    const v = this.values.get(name);
    if (v === undefined) return fallback;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string') return v === 'true' || v === '1' || v === 'yes';
    return Boolean(v);
  }

  number(name: string): number | undefined;
  number(name: string, fallback: number): number;
  number(name: string, fallback?: number): number | undefined {
    const v = this.values.get(name);
    if (v === undefined || v === '') return fallback;
    const n = typeof v === 'number' ? v : Number(v);
    return Number.isFinite(n) ? n : fallback;
  }

  list(name: string): string[] {
    const v = this.values.get(name);
    if (v === undefined) return [];
    if (Array.isArray(v)) return v;
    return String(v)
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  }

  /** A copy with some values replaced; used by tests and embedding. */
  with(overrides: Record<string, FlagValue | undefined>): Config {
    const next = new Map(this.values);
    for (const [k, v] of Object.entries(overrides)) {
      if (v === undefined) next.delete(k);
      else next.set(k, v);
    }
    return new Config(next);
  }

  entries(): IterableIterator<[string, FlagValue]> {
    return this.values.entries();
  }
}

/** Applies declared defaults under the given values. */
export function withDefaults(decls: readonly FlagDeclaration[], values: Record<string, FlagValue | undefined>): Config {
  const merged: Record<string, FlagValue | undefined> = {};
  for (const d of decls) if (d.default !== undefined) merged[d.name] = d.default;
  for (const [k, v] of Object.entries(values)) if (v !== undefined) merged[k] = v;
  return new Config(merged);
}
