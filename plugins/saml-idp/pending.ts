/**
 * A checked sign-in request waiting for the user, kept server side under a random ticket (ten
 * minutes): the browser carries only the ticket, through the hosted login page when it has no
 * session yet. The ticket is consumed when the Response is issued or the request is refused.
 */
import { randomBytes } from 'node:crypto';
import type { MemoryStore } from '../../core/memory-store.js';

export const PENDING_TTL_MS = 10 * 60 * 1000;
const keyOf = (ticket: string) => `saml-idp:pending:${ticket}`;

export interface PendingSignIn {
  orgId: string;
  providerId: string;
  /** The AuthnRequest's ID; null for an IdP-initiated sign-in. */
  requestId: string | null;
  relayState: string | null;
}

const valid = (ticket: string | undefined): ticket is string =>
  typeof ticket === 'string' && /^[A-Za-z0-9_-]{20,128}$/.test(ticket);

export async function park(memory: MemoryStore, pending: PendingSignIn): Promise<string> {
  const ticket = randomBytes(32).toString('base64url');
  await memory.set(keyOf(ticket), JSON.stringify(pending), PENDING_TTL_MS);
  return ticket;
}

export async function peek(memory: MemoryStore, ticket: string | undefined): Promise<PendingSignIn | null> {
  if (!valid(ticket)) return null;
  const text = await memory.get(keyOf(ticket));
  return text ? (JSON.parse(text) as PendingSignIn) : null;
}

/** The pending sign-in, once: a second use of the ticket finds nothing. */
export async function take(memory: MemoryStore, ticket: string): Promise<PendingSignIn | null> {
  const text = await memory.consume(keyOf(ticket));
  return text ? (JSON.parse(text) as PendingSignIn) : null;
}
