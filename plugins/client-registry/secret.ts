/**
 * Client secrets. They are 256-bit random values generated here, so a fast digest is as strong as
 * a slow password hash against guessing (there is no dictionary to walk), and it keeps
 * client_credentials issuance cheap. Only the digest is stored; comparison is constant-time
 *.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'lks_';

export function newClientSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

export function newClientId(): string {
  return randomBytes(16).toString('hex');
}

const DOMAIN = 'latchkey client secret v1\0';

export function digestSecret(secret: string): string {
  // One-shot hash of the domain-separated secret (the same bytes as before, without a Hash object).
  return 'sha256$' + hash('sha256', DOMAIN + secret, 'base64url');
}

export function secretMatches(digest: string, given: string): boolean {
  const a = Buffer.from(digest, 'utf8');
  const b = Buffer.from(digestSecret(given), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
