/**
 * Email and SMS one-time codes (short, single use, stored hashed,
 * minutes-long). The memory store holds the code's SHA-256 digest sealed by the keys service
 * (`--encryption-key` encrypts OTP digests at rest), one live code per user and channel:
 * a new code replaces the previous one (`resend_otp` invalidates it).
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { MemoryStore } from '../../core/memory-store.js';
import type { KeysService } from '../keys/index.js';
import type { OtpMethod } from './channels.js';

export const CODE_TTL_MS = 5 * 60_000;
const CODE_DIGITS = 6;

const keyOf = (method: OtpMethod, userId: string) => `mfa-otp:code:${method}:${userId}`;
const purposeOf = (method: OtpMethod, userId: string) => `mfa-otp:${method}:${userId}`;
const digestOf = (code: string) => createHash('sha256').update(code).digest();

export function createCodeStore(memory: MemoryStore, keys: KeysService) {
  return {
    /** A fresh code for the user on this channel; the previous one stops working. */
    async issue(method: OtpMethod, userId: string): Promise<string> {
      const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
      const sealed = keys.seal(digestOf(code).toString('base64url'), purposeOf(method, userId));
      await memory.set(keyOf(method, userId), sealed, CODE_TTL_MS);
      return code;
    },
    async live(method: OtpMethod, userId: string): Promise<boolean> {
      return (await memory.get(keyOf(method, userId))) !== null;
    },
    /**
     * True when the code is the live one; it is spent then. The stored value is taken with an
     * atomic consume and must be the very one compared: a concurrent resend's new code survives.
     */
    async use(method: OtpMethod, userId: string, code: string): Promise<boolean> {
      const key = keyOf(method, userId);
      const sealed = await memory.get(key);
      if (sealed === null) return false;
      const opened = keys.open(sealed, purposeOf(method, userId));
      if (opened === null) return false;
      const expected = Buffer.from(opened, 'base64url');
      const given = digestOf(code.trim());
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
      const taken = await memory.consume(key);
      if (taken !== sealed) {
        // A resend replaced it between the read and the take: put the newer code back.
        if (taken !== null) await memory.set(key, taken, CODE_TTL_MS);
        return false;
      }
      return true;
    },
    async remove(userId: string): Promise<void> {
      await memory.delete(keyOf('email_otp', userId));
      await memory.delete(keyOf('sms_otp', userId));
    },
  };
}

export type CodeStore = ReturnType<typeof createCodeStore>;
