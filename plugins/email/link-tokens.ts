/**
 * Single-use tokens of mailed links, kept in the memory store (magic links live
 * there) under a SHA-256 digest of the token, so the store never holds a usable link. Taking one
 * is the store's atomic consume: of two concurrent uses only one gets it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MemoryStore } from '../../core/memory-store.js';

const digest = (token: string): string => createHash('sha256').update(token).digest('base64url');

export interface LinkTokens<T> {
  /** Stores `value` for `ttlMs` and answers the new token (32 random bytes, base64url). */
  issue(value: T, ttlMs: number): Promise<string>;
  /** The value of a live token, once; null for an unknown, spent or expired one. */
  take(token: string): Promise<T | null>;
}

export function linkTokens<T>(memory: MemoryStore, prefix: string): LinkTokens<T> {
  return {
    async issue(value, ttlMs) {
      const token = randomBytes(32).toString('base64url');
      await memory.set(`${prefix}:${digest(token)}`, JSON.stringify(value), ttlMs);
      return token;
    },
    async take(token) {
      if (token.length === 0 || token.length > 256) return null;
      const raw = await memory.consume(`${prefix}:${digest(token)}`);
      return raw === null ? null : (JSON.parse(raw) as T);
    },
  };
}
