/**
 * Abuse limits of texts: fixed 15-minute windows per destination number and per client IP in the
 * memory store (shared by every node with Redis or the database backend), so nobody can flood a
 * phone, or run up the operator's gateway bill, through the operations that send codes.
 */
import { createHash } from 'node:crypto';
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';

export const SMS_WINDOW_MS = 15 * 60 * 1000;
export const SMS_PER_NUMBER = 5;
export const SMS_PER_IP = 20;

const digest = (s: string): string => createHash('sha256').update(s).digest('base64url');

export function createSmsLimits(memory: MemoryStore, perNumber = SMS_PER_NUMBER, perIp = SMS_PER_IP) {
  return async (ctx: RequestContext, to: string): Promise<void> => {
    const byIp = await memory.increment(`sms-limit:ip:${ctx.ip}`, SMS_WINDOW_MS);
    if (byIp > perIp)
      throw new ServiceError(
        'resource_exhausted',
        'too many text messages requested from this address, try again later',
      );
    const byNumber = await memory.increment(`sms-limit:to:${digest(to)}`, SMS_WINDOW_MS);
    if (byNumber > perNumber) {
      throw new ServiceError('resource_exhausted', 'too many text messages requested for this number, try again later');
    }
  };
}
