/**
 * Authorization codes (RFC 6749 §4.1.2): random, short-lived, single use, kept in the memory store
 * under a digest of the code. Consumption is atomic, so two concurrent redemptions cannot both
 * win; a spent code leaves a marker so a replay can revoke what the first redemption issued
 * (RFC 6749 §4.1.2, RFC 9700 §4.2.1).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MemoryStore } from '../../core/memory-store.js';

/** Codes are exchanged at once by real clients; 60 seconds is generous (RFC 6749 §4.1.2: max 10 minutes). */
export const CODE_TTL_MS = 60_000;
const SPENT_TTL_MS = 10 * 60_000;

export interface CodeGrant {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  userId: string;
  /** The browser session that approved the request (public clients must redeem from it). */
  browserSessionId: string;
  /**
   * That session's family (sessions' SessionRecord.family): the redeemed session is issued from it,
   * so ending the browser session (GET /logout, /v1/logout) ends the client's tokens too. Absent
   * in codes stored before it was recorded; the session id stands for it then.
   */
  browserFamily?: string;
  scopes: string[];
  roles: string[];
  amr: string[];
  authTime: number;
  nonce?: string;
  resource?: string;
  /** Unix ms. */
  expiresAt: number;
}

const digest = (code: string): string => createHash('sha256').update(code).digest('base64url');

export async function storeCode(
  memory: MemoryStore,
  grant: Omit<CodeGrant, 'expiresAt'>,
  ttlMs = CODE_TTL_MS,
): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  const full: CodeGrant = { ...grant, expiresAt: Date.now() + ttlMs };
  await memory.set(`oauth:code:${digest(code)}`, JSON.stringify(full), ttlMs);
  return code;
}

export type CodeLookup =
  | { kind: 'fresh'; grant: CodeGrant }
  | { kind: 'spent'; sessionId: string | null; userId: string | null }
  | { kind: 'unknown' };

export async function consumeCode(memory: MemoryStore, code: string): Promise<CodeLookup> {
  if (code.length > 256) return { kind: 'unknown' };
  const key = digest(code);
  const raw = await memory.consume(`oauth:code:${key}`);
  if (raw) {
    const grant = JSON.parse(raw) as CodeGrant;
    // The store's TTL is the primary expiry; this also covers stores with coarse expiry.
    if (grant.expiresAt <= Date.now()) return { kind: 'unknown' };
    return { kind: 'fresh', grant };
  }
  const spent = await memory.get(`oauth:code-spent:${key}`);
  if (spent) {
    const s = JSON.parse(spent) as { sessionId: string | null; userId: string | null };
    return { kind: 'spent', ...s };
  }
  return { kind: 'unknown' };
}

/** Records what a redeemed code produced, for replay handling. */
export async function markSpent(
  memory: MemoryStore,
  code: string,
  userId: string,
  sessionId: string | null,
): Promise<void> {
  await memory.set(`oauth:code-spent:${digest(code)}`, JSON.stringify({ userId, sessionId }), SPENT_TTL_MS);
}
