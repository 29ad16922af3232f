/**
 * Super-admin sessions (SPEC.md "Authentication/Super-admin"): `POST /v1/admin/login` exchanges the
 * admin secret for an opaque `service-admin` cookie backed by the memory store, so logout ends it
 * everywhere. The cookie never contains the secret.
 */
import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MemoryStore } from '../../core/memory-store.js';

export const ADMIN_COOKIE = 'service-admin';
export const ADMIN_SESSION_TTL_MS = 24 * 60 * 60 * 1000;

const keyOf = (token: string): string => `admin-session:${createHash('sha256').update(token).digest('base64url')}`;

/**
 * A constant-time check of a given secret against `expected`. Both sides are compared as SHA-256
 * digests, so the comparison takes the same time whatever the lengths; the expected digest is
 * computed once, since the header check runs on every admin request.
 */
export function secretMatcher(expected: string): (given: string | undefined) => boolean {
  const want = hash('sha256', expected, 'buffer');
  return (given) => given !== undefined && given.length > 0 && timingSafeEqual(want, hash('sha256', given, 'buffer'));
}

export function secretMatches(expected: string, given: string | undefined): boolean {
  return secretMatcher(expected)(given);
}

export async function startAdminSession(memory: MemoryStore): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await memory.set(keyOf(token), '1', ADMIN_SESSION_TTL_MS);
  return token;
}

export async function adminSessionValid(memory: MemoryStore, token: string | undefined): Promise<boolean> {
  if (!token || token.length > 128) return false;
  return (await memory.get(keyOf(token))) !== null;
}

export async function endAdminSession(memory: MemoryStore, token: string | undefined): Promise<void> {
  if (token && token.length <= 128) await memory.delete(keyOf(token));
}
