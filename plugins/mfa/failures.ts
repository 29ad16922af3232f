/**
 * Wrong codes per user and factor: five lock that factor for 15 minutes, as five wrong passwords
 * lock a login. A fixed window in the memory store, shared by every node.
 */
import { ServiceError } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { MfaMethod } from './types.js';

export const MAX_FAILURES = 5;
export const LOCK_MS = 15 * 60_000;

const keyOf = (userId: string, method: MfaMethod) => `mfa:failures:${method}:${userId}`;

export const factorLocked = (method: MfaMethod) =>
  new ServiceError('resource_exhausted', `too many wrong codes, ${method} is locked for 15 minutes`);

export function createFailureCounter(memory: MemoryStore) {
  return {
    async check(userId: string, method: MfaMethod): Promise<void> {
      const count = Number((await memory.get(keyOf(userId, method))) ?? 0);
      if (count >= MAX_FAILURES) throw factorLocked(method);
    },
    async record(userId: string, method: MfaMethod): Promise<void> {
      const count = await memory.increment(keyOf(userId, method), LOCK_MS);
      if (count >= MAX_FAILURES) throw factorLocked(method);
    },
    async clear(userId: string, method: MfaMethod): Promise<void> {
      await memory.delete(keyOf(userId, method));
    },
  };
}
