/**
 * Abuse limits of mail-sending requests (forgot_password, resend_verify_email, magic links):
 * fixed 15-minute windows per destination address and per client IP in the memory store (shared
 * by every node when it is Redis or the database), so nobody can mail-bomb an address through
 * these operations, nor one client send without bound. Unknown addresses count like known ones
 * (no enumeration through the limit). Answered with the spec's 429 envelope.
 */
import { createHash } from 'node:crypto';
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';

export const SEND_WINDOW_MS = 15 * 60 * 1000;

const digest = (s: string): string => createHash('sha256').update(s).digest('base64url');

export function createSendLimits(memory: MemoryStore, perAddress: number, perIp: number) {
  return async (ctx: RequestContext, address: string): Promise<void> => {
    const byIp = await memory.increment(`mail-limit:ip:${ctx.ip}`, SEND_WINDOW_MS);
    if (byIp > perIp)
      throw new ServiceError('resource_exhausted', 'too many email requests from this address, try again later');
    const byAddress = await memory.increment(`mail-limit:to:${digest(address.toLowerCase())}`, SEND_WINDOW_MS);
    if (byAddress > perAddress)
      throw new ServiceError('resource_exhausted', 'too many emails requested for this recipient, try again later');
  };
}
