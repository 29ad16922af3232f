/** PKCE (RFC 7636): S256 only; `plain` is refused (RFC 9700 §2.1.1). */
import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 §4.1: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** BASE64URL(SHA256(verifier)) is always 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const isChallenge = (v: string): boolean => CHALLENGE.test(v);
export const isVerifier = (v: string): boolean => VERIFIER.test(v);

export function verifierMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
