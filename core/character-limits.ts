/**
 * String bounds counted in characters (Unicode code points), as JSON Schema defines `maxLength`
 * (draft 2020-12, §6.3.1: the length of a string is its number of characters per RFC 8259), and as
 * the databases size their columns (PostgreSQL `varchar(n)` and MariaDB's utf8mb4 `varchar(n)`
 * count characters). TypeBox's compiled check compares JavaScript's `length`, UTF-16 code units,
 * so a character outside the Basic Multilingual Plane (most emoji, some CJK names) would count
 * twice: a 256-character bound would refuse a name of 129 emoji.
 *
 * How: the schema an operation validates with is a copy in which every string's `maxLength: n`
 * becomes the format `max-characters:n`, checked by a function registered with TypeBox's
 * FormatRegistry. The published schema (OpenAPI, GraphQL, .proto) keeps `maxLength` as it is.
 * `limitOfFormat` turns the format's error back into the usual message.
 */
import { FormatRegistry, Kind, type TSchema } from '@sinclair/typebox';

const PREFIX = 'max-characters:';

/** The number of code points in `s` (a surrogate pair is one). */
export function characterCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one: the pair is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function formatFor(max: number): string {
  const name = `${PREFIX}${max}`;
  // Fewer code units than the bound is within it whatever they are: no count on the common path.
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, (s) => s.length <= max || characterCount(s) <= max);
  return name;
}

/** The bound a `max-characters:n` format stands for, or undefined for any other format. */
export function limitOfFormat(format: unknown): number | undefined {
  return typeof format === 'string' && format.startsWith(PREFIX) ? Number(format.slice(PREFIX.length)) : undefined;
}

/** A copy of `schema` whose string bounds count characters (see the header). */
export function withCharacterLimits<T extends TSchema>(schema: T): T {
  return copy(schema) as T;
}

function copy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(copy);
  if (node === null || typeof node !== 'object') return node;
  const source = node as Record<string | symbol, unknown>;
  // Object spread keeps TypeBox's symbol keys (Kind, OptionalKind), which its compiler reads.
  const out: Record<string | symbol, unknown> = { ...source };
  for (const key of Object.keys(source)) out[key] = copy(source[key]);
  if (source[Kind] === 'String' && typeof source.maxLength === 'number' && source.format === undefined) {
    delete out.maxLength;
    out.format = formatFor(source.maxLength);
  }
  return out;
}
