/**
 * Encryption at rest (--encryption-key encrypts TOTP secrets and OTP digests; HMAC
 * deployments fall back to the JWT secret). AES-256-GCM with a key derived by HKDF-SHA256, and
 * a purpose string bound as additional data so a value sealed for one use cannot be opened as
 * another.
 */
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import type { RandomPool } from '../../core/random-pool.js';

export function deriveKey(secret: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), info, 32));
}

/** `random` supplies the 96-bit IV, a fresh random one per value (NIST SP 800-38D §8.2.2). */
export function seal(key: Buffer, plaintext: string, purpose: string, random: RandomPool): string {
  const iv = random.bytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** The plaintext, or null when the value was not sealed by this key for this purpose. */
export function open(key: Buffer, sealed: string, purpose: string): string | null {
  if (!sealed.startsWith('v1.')) return null;
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  if (raw.length < 28) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
