/**
 * Checks of trusted-issuer fields, run before any write so a refused request leaves no record.
 */
import { invalidArgument } from '../../core/errors.js';

export const KEY_SOURCE_TYPES = ['oidc_discovery', 'static_jwks_url'] as const;
export const ISSUER_TYPES = ['generic', 'spiffe'] as const;

const CONTROL = /[\u0000-\u001f\u007f]/;

export function checkText(value: string, field: string): string {
  const trimmed = value.trim();
  if (!trimmed || CONTROL.test(trimmed)) throw invalidArgument(`${field} is invalid`);
  return trimmed;
}

/** An absolute https URL (http only for loopback hosts, for local development), without fragment or user info. */
export function checkUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidArgument(`${field} must be an absolute URL`);
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw invalidArgument(`${field} must be an https URL`);
  if (url.username || url.password || url.hash || CONTROL.test(value)) throw invalidArgument(`${field} is invalid`);
  return value;
}

export function checkOneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  if (!(allowed as readonly string[]).includes(value))
    throw invalidArgument(`${field} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** A claim name: letters, digits and `_ - . :` only. */
export function checkClaimName(value: string): string {
  if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(value)) throw invalidArgument('subject_claim is invalid');
  return value;
}

export function checkSubjects(values: string[] | undefined): string[] {
  return [...new Set((values ?? []).map((s) => checkText(s, 'allowed_subjects')))];
}

/**
 * RFC 7523 §3: the audience identifies this authorization server; OIDC Core §9 names the token
 * endpoint URL. Either is accepted, nothing else.
 */
export function checkAudience(value: string, accepted: readonly string[]): string {
  if (!accepted.includes(value)) throw invalidArgument(`expected_aud must be one of ${accepted.join(', ')}`);
  return value;
}
