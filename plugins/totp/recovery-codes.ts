/**
 * Recovery codes: ten random codes shown once at TOTP setup, each good for one sign-in when the
 * authenticator app is lost. Stored as SHA-256 digests bound to the user; a use deletes the row
 * in one statement, so of two concurrent uses only one succeeds.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import { RecoveryCodeEntity } from './entities.js';

export const RECOVERY_CODE_COUNT = 10;
/** Crockford-style alphabet without look-alikes (0/O, 1/I/L). */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** `XXXXX-XXXXX`: 10 characters of a 31-letter alphabet, about 49 bits. */
function newCode(): string {
  const bytes = randomBytes(10);
  let out = '';
  for (let i = 0; i < 10; i++) out += ALPHABET[bytes[i] % ALPHABET.length];
  return `${out.slice(0, 5)}-${out.slice(5)}`;
}

/** The code as typed, reduced to its letters (case and separators do not matter). */
export const normalizeRecoveryCode = (code: string): string => code.toUpperCase().replace(/[\s-]/g, '');

const digestOf = (userId: string, code: string): string =>
  createHash('sha256')
    .update(`${userId}:${normalizeRecoveryCode(code)}`)
    .digest('base64url');

export function createRecoveryCodes(storage: Storage) {
  return {
    /** Replaces the user's codes with fresh ones; answers them in plain text, this once. */
    async issue(userId: string): Promise<string[]> {
      const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
      const em = storage.em();
      await em.transactional(async (tx) => {
        await tx.nativeDelete(RecoveryCodeEntity, { userId } as never);
        const now = Date.now();
        for (const code of codes)
          tx.create(RecoveryCodeEntity, {
            id: newId(),
            userId,
            digest: digestOf(userId, code),
            createdAt: now,
          } as never);
      });
      return codes;
    },
    /** True when the code was one of the user's unused codes; it is spent now. */
    async use(userId: string, code: string): Promise<boolean> {
      if (!/^[A-Z0-9]{10}$/.test(normalizeRecoveryCode(code))) return false;
      const deleted = await storage
        .em()
        .nativeDelete(RecoveryCodeEntity, { userId, digest: digestOf(userId, code) } as never);
      return deleted > 0;
    },
    async remove(userId: string): Promise<void> {
      await storage.em().nativeDelete(RecoveryCodeEntity, { userId } as never);
    },
  };
}
