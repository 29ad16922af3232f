/**
 * Super-admin sessions: `POST /v1/admin/login` exchanges the
 * admin secret for an opaque `service-admin` cookie backed by the memory store, so logout ends it
 * everywhere. The cookie never contains the secret.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MemoryStore } from '../../core/memory-store.js';

export const ADMIN_COOKIE = 'service-admin';
export const ADMIN_SESSION_TTL_MS = 24 * 60 * 60 * 1000;

const keyOf = (token: string): string => `admin-session:${createHash('sha256').update(token).digest('base64url')}`;

/** Whitespace HTTP cannot carry at the ends of a header value (SP, HTAB; CR and LF not at all). */
const isEdgeSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
/** Index arithmetic, not a regular expression: `[ \t]+$` takes quadratic time on a long run of spaces. */
function withoutEdgeSpace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isEdgeSpace(value.charCodeAt(start))) start++;
  while (end > start && isEdgeSpace(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

/**
 * A constant-time check of a given secret against `expected`, run on every admin request that
 * carries the header. The given value is copied into a zeroed buffer of the expected byte length
 * (cut or zero-padded) and that buffer is compared with timingSafeEqual; the byte lengths are
 * compared after it (a value whose bytes fit the buffer is written whole, so equal lengths and
 * equal bytes mean the same secret). The time taken depends on the expected length and on the
 * given value's own length, never on how many bytes of a guess are right. (Hashing both sides did the same job at the cost of a SHA-256 per request:
 * ~3% of an admin-authenticated FGA check's server time in a profile.)
 */
export function secretMatcher(
  expected: string,
  given: 'text' | 'header' = 'text',
): (given: string | undefined) => boolean {
  // A header value has no whitespace at either end (RFC 9110 §5.5; Node drops it on arrival),
  // yet a secret may have some: --admin-secret must only be non-empty at startup,
  // and a secret read from a file keeps its newline. Such a secret could never match in the
  // header, so a header is compared with the secret as a header can carry it, and a
  // value handed over with edge whitespace still on it is trimmed the same way.
  const header = given === 'header';
  const want = Buffer.from(header ? withoutEdgeSpace(expected) : expected, 'utf8');
  if (want.length === 0) return () => false;
  // Node hands HTTP/1 and HTTP/2 header values over as one character per byte received
  // (latin1): the bytes a client sent for a non-ASCII secret are its UTF-8 encoding, so they
  // are taken back as they came (otherwise such a secret never matches in the header).
  const encoding: BufferEncoding = header ? 'latin1' : 'utf8';
  const scratch = Buffer.alloc(want.length);
  return (value) => {
    if (value === undefined) return false;
    if (header) value = withoutEdgeSpace(value);
    scratch.fill(0);
    scratch.write(value, encoding);
    const sameBytes = timingSafeEqual(scratch, want);
    return Buffer.byteLength(value, encoding) === want.length && sameBytes;
  };
}

export function secretMatches(expected: string, given: string | undefined): boolean {
  return secretMatcher(expected)(given);
}

/**
 * What a session record holds: an HMAC of the admin secret keyed by the session's own token. A
 * session is valid only while it matches the secret in force, so changing `--admin-secret` ends
 * every admin session (they live in the memory store, the database by default, and would
 * otherwise outlive a restart with a new secret). The store sees neither the secret nor the
 * token (its key is the token's digest), so the record gives nothing to guess the secret from.
 */
const bindingOf = (token: string, secret: string): string =>
  createHmac('sha256', token).update(secret).digest('base64url');

export async function startAdminSession(memory: MemoryStore, secret: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await memory.set(keyOf(token), bindingOf(token, secret), ADMIN_SESSION_TTL_MS);
  return token;
}

export async function adminSessionValid(
  memory: MemoryStore,
  token: string | undefined,
  secret: string,
): Promise<boolean> {
  if (!token || token.length > 128) return false;
  const stored = await memory.get(keyOf(token));
  if (stored === null) return false;
  const want = Buffer.from(bindingOf(token, secret));
  const got = Buffer.from(stored);
  return got.length === want.length && timingSafeEqual(got, want);
}

export async function endAdminSession(memory: MemoryStore, token: string | undefined): Promise<void> {
  if (token && token.length <= 128) await memory.delete(keyOf(token));
}
