/**
 * The DNS challenge: a TXT record at
 * `_service-challenge.<domain>` whose value is `service-domain-verification=<token>`, the token
 * 32 random bytes in base32 (RFC 4648 §6, no padding). Pending challenges live in the memory
 * store for about 24 hours and are not rows: a pending challenge never affects routing.
 */
import { randomBytes } from 'node:crypto';

export const CHALLENGE_TTL_MS = 24 * 60 * 60 * 1000;
export const RECORD_PREFIX = '_service-challenge.';
export const VALUE_PREFIX = 'service-domain-verification=';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 §6 base32 without padding. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

export const newChallengeValue = (): string => VALUE_PREFIX + base32(randomBytes(32));
export const recordNameOf = (domain: string): string => RECORD_PREFIX + domain;
/** One pending challenge per organization and domain: two organizations may try the same domain. */
export const challengeKey = (orgId: string, domain: string): string => `org-domain:challenge:${orgId}:${domain}`;
