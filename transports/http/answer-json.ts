/**
 * The JSON text of an answer that carries tokens (OperationDefinition.tokenOutput): the same text
 * JSON.stringify gives, with long strings made only of base64url characters and dots (JWTs,
 * sealed values, refresh tokens) copied between quotes as they are.
 *
 * Why: V8's JSON.stringify scans every character of every string for what needs escaping. A
 * login's answer is ~1.6 KB, ~1.3 KB of it the two JWTs, and its serialization was ~44k machine
 * instructions of the login's main thread (bench/profiling/callgrind-requests.ts OP=login); a regular
 * expression over the same characters costs a fraction of that. Such characters never need
 * escaping in JSON (RFC 8259 §7), so the text is the one JSON.stringify would give.
 */

/** Shorter strings gain less than the check costs. */
const LONG = 64;
const OPAQUE = /^[A-Za-z0-9_.-]+$/;

export function answerJson(out: unknown): string {
  if (
    out === null ||
    typeof out !== 'object' ||
    Array.isArray(out) ||
    typeof (out as { toJSON?: unknown }).toJSON === 'function'
  )
    return JSON.stringify(out);
  let text = '';
  const record = out as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = record[key];
    const part =
      typeof value === 'string' && value.length >= LONG && OPAQUE.test(value)
        ? `"${value}"`
        : (JSON.stringify(value) as string | undefined);
    // JSON.stringify leaves out members whose value it cannot write (undefined, functions, symbols).
    if (part === undefined) continue;
    text += `${text === '' ? '{' : ','}${JSON.stringify(key)}:${part}`;
  }
  return text === '' ? '{}' : `${text}}`;
}
