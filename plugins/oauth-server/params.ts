/**
 * Reading protocol parameters. RFC 6749 §3.1 and §3.2: parameters must not repeat, and empty
 * values count as absent. Bodies may be form-encoded or JSON.
 */
import { invalidRequest } from './errors.js';

export type Params = Record<string, string>;

const MAX_PARAM = 4096;

export function readParams(source: unknown): Params {
  const out: Params = {};
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return out;
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) throw invalidRequest(`parameter ${k} must not be repeated`);
    const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
    if (s === null) throw invalidRequest(`parameter ${k} must be a string`);
    if (s.length > MAX_PARAM) throw invalidRequest(`parameter ${k} is too long`);
    out[k] = s;
  }
  return out;
}

/** Space-separated scope list (RFC 6749 §3.3), de-duplicated in order. */
export function splitScope(value: string | undefined): string[] {
  if (!value) return [];
  return [...new Set(value.split(' ').filter(Boolean))];
}
