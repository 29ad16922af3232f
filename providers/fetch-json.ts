/**
 * GETs a provider API (GitHub's /user, Discord's /users/@me, ...) with the access token, through
 * undici: a bounded time, a bounded body, JSON objects or arrays only. A failure is a ProviderError whose
 * text names the endpoint key, never the token or the provider's answer.
 */
import { request } from 'undici';
import { ProviderError } from './errors.js';
import type { JsonObject } from './kit-types.js';

const TIMEOUT_MS = 10_000;
const MAX_BODY = 1024 * 1024;

export async function fetchJson(
  url: string,
  accessToken: string,
  key: string,
  init: { query?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<unknown> {
  const target = new URL(url);
  for (const [k, v] of Object.entries(init.query ?? {})) target.searchParams.set(k, v);
  let res;
  try {
    res = await request(target, {
      method: 'GET',
      headers: {
        accept: 'application/json',
        'user-agent': 'latchkey',
        authorization: `Bearer ${accessToken}`,
        ...init.headers,
      },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
  } catch {
    throw new ProviderError(`${key}_unreachable`, `the provider's ${key} endpoint could not be reached`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new ProviderError(`${key}_status_${res.statusCode}`, `the provider's ${key} endpoint refused the request`);
  }
  const length = Number(res.headers['content-length'] ?? 0);
  if (length > MAX_BODY) {
    await res.body.dump();
    throw new ProviderError(`${key}_too_large`, `the provider's ${key} answer is too large`);
  }
  let body: unknown;
  try {
    const text = await res.body.text();
    if (text.length > MAX_BODY) throw new Error('too large');
    body = JSON.parse(text);
  } catch {
    throw new ProviderError(`${key}_not_json`, `the provider's ${key} answer is not JSON`);
  }
  if (!body || typeof body !== 'object')
    throw new ProviderError(`${key}_not_object`, `the provider's ${key} answer is not a JSON object`);
  return body;
}

/** An API answer that must be a JSON object. */
export function asObject(v: unknown, key: string): JsonObject {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as JsonObject;
  throw new ProviderError(`${key}_not_object`, `the provider's ${key} answer is not a JSON object`);
}

/** An API answer that must be a list of JSON objects (others in it are skipped). */
export function asObjectList(v: unknown, key: string): JsonObject[] {
  if (!Array.isArray(v)) throw new ProviderError(`${key}_not_list`, `the provider's ${key} answer is not a list`);
  return v.filter((e): e is JsonObject => !!e && typeof e === 'object' && !Array.isArray(e));
}

/** A field that must be a non-empty string (ids are accepted as numbers too: GitHub's are). */
export function requireId(doc: JsonObject, field: string, key: string): string {
  const v = doc[field];
  if (typeof v === 'string' && v.length > 0 && v.length <= 255) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  throw new ProviderError('missing_subject', `the provider's ${key} answer has no usable ${field}`);
}

/** An optional string field (empty and non-string values read as absent). */
export function optionalString(doc: JsonObject | undefined, field: string): string | undefined {
  const v = doc?.[field];
  return typeof v === 'string' && v.length > 0 && v.length <= 2048 ? v : undefined;
}

/** OIDC's `email_verified`, which some providers (Apple) send as the string "true". */
export function claimTrue(doc: JsonObject | undefined, field: string): boolean {
  const v = doc?.[field];
  return v === true || v === 'true';
}
