/**
 * Texted one-time codes of the phone flows (phone verification, password reset by SMS): six
 * digits, single use, minutes-long, one live code per purpose and subject (a new code replaces
 * the previous one). The memory store keeps only the code's SHA-256 digest, sealed by the keys
 * service with whatever the flow attaches (`--encryption-key` encrypts OTP digests at rest).
 * Five wrong codes within 15 minutes drop the live code and refuse further tries until the
 * window ends, so six digits cannot be guessed by trying.
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { KeysService } from '../keys/index.js';
import type { SmsCodes } from './types.js';

export const CODE_DIGITS = 6;
export const MAX_WRONG_CODES = 5;
export const WRONG_CODE_WINDOW_MS = 15 * 60_000;

const digestOf = (code: string): string => createHash('sha256').update(code).digest('base64url');
/** Store keys name a digest of the subject (a phone number is personal data). */
const hidden = (s: string): string => createHash('sha256').update(s).digest('base64url');
const codeKey = (purpose: string, subject: string) => `sms-code:${purpose}:${hidden(subject)}`;
const failureKey = (purpose: string, subject: string) => `sms-code-failures:${purpose}:${hidden(subject)}`;
const sealPurpose = (purpose: string, subject: string) => `sms-code:${purpose}:${subject}`;

interface Stored {
  digest: string;
  data: string;
  expiresAt: number;
}

export const tooManyWrongCodes = () =>
  new ServiceError('resource_exhausted', 'too many wrong codes, try again in 15 minutes');

export function createSmsCodes(memory: MemoryStore, keys: KeysService): SmsCodes {
  async function read(purpose: string, subject: string): Promise<{ sealed: string; stored: Stored } | null> {
    const sealed = await memory.get(codeKey(purpose, subject));
    if (sealed === null) return null;
    const opened = keys.open(sealed, sealPurpose(purpose, subject));
    if (opened === null) return null;
    return { sealed, stored: JSON.parse(opened) as Stored };
  }

  async function restore(purpose: string, subject: string, sealed: string): Promise<void> {
    const opened = keys.open(sealed, sealPurpose(purpose, subject));
    const left = opened === null ? 0 : (JSON.parse(opened) as Stored).expiresAt - Date.now();
    if (left > 0) await memory.set(codeKey(purpose, subject), sealed, left);
  }

  async function checkNotLocked(purpose: string, subject: string): Promise<void> {
    const failures = Number((await memory.get(failureKey(purpose, subject))) ?? 0);
    if (failures >= MAX_WRONG_CODES) throw tooManyWrongCodes();
  }

  return {
    async issue(purpose, subject, ttlMs, data = '') {
      const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
      const stored: Stored = { digest: digestOf(code), data, expiresAt: Date.now() + ttlMs };
      await memory.set(
        codeKey(purpose, subject),
        keys.seal(JSON.stringify(stored), sealPurpose(purpose, subject)),
        ttlMs,
      );
      return code;
    },

    async pending(purpose, subject) {
      const found = await read(purpose, subject);
      return found ? { data: found.stored.data } : null;
    },

    checkNotLocked,

    async redeem(purpose, subject, code) {
      await checkNotLocked(purpose, subject);
      const found = await read(purpose, subject);
      const given = Buffer.from(digestOf(code.trim()), 'base64url');
      const expected = found ? Buffer.from(found.stored.digest, 'base64url') : null;
      const right = expected !== null && expected.length === given.length && timingSafeEqual(expected, given);
      if (right && found) {
        // Taken atomically and only as read: of two concurrent redemptions one wins, and a code
        // a resend put there between the read and the take is put back.
        const taken = await memory.consume(codeKey(purpose, subject));
        if (taken === found.sealed) {
          await memory.delete(failureKey(purpose, subject));
          return { data: found.stored.data };
        }
        if (taken !== null) await restore(purpose, subject, taken);
        return null;
      }
      const failures = await memory.increment(failureKey(purpose, subject), WRONG_CODE_WINDOW_MS);
      if (failures >= MAX_WRONG_CODES) {
        await memory.delete(codeKey(purpose, subject));
        throw tooManyWrongCodes();
      }
      return null;
    },

    async drop(purpose, subject) {
      await memory.delete(codeKey(purpose, subject));
    },
  };
}
