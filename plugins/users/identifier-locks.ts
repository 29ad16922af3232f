/**
 * Uniqueness of email and phone is enforced by the application on every database type: a writer
 * first takes a short lock per identifier in the memory store (atomic `setIfAbsent`, shared by
 * every node when the store is Redis or the database), then looks for an existing holder, then
 * writes. Two concurrent signups of one email therefore serialize and the second sees the first.
 */
import { randomBytes } from 'node:crypto';
import { ServiceError } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';

const LOCK_TTL_MS = 15_000;

export type IdentifierLocks = <T>(identifiers: string[], fn: () => Promise<T>) => Promise<T>;

/** Takes the per-identifier locks (in a fixed order), runs `fn`, releases. Busy locks are retried briefly. */
export function identifierLocks(memory: MemoryStore): IdentifierLocks {
  return async function withIdentifierLocks<T>(identifiers: string[], fn: () => Promise<T>): Promise<T> {
    const keys = [...new Set(identifiers)].sort().map((i) => `user-unique:${i}`);
    const token = randomBytes(8).toString('hex');
    const held: string[] = [];
    try {
      for (const key of keys) {
        const deadline = Date.now() + LOCK_TTL_MS;
        for (let attempt = 0; ; attempt++) {
          if (await memory.setIfAbsent(key, token, LOCK_TTL_MS)) break;
          if (Date.now() > deadline)
            throw new ServiceError('unavailable', 'could not reserve the identifier, try again');
          await new Promise((r) => setTimeout(r, Math.min(5 * 2 ** attempt, 100)));
        }
        held.push(key);
      }
      return await fn();
    } finally {
      for (const key of held) {
        if ((await memory.get(key).catch(() => null)) === token) await memory.delete(key).catch(() => {});
      }
    }
  };
}
