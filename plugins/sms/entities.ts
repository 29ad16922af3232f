/**
 * The sms plugin's table: the durable outbox (`sms_outbox`: every text to send, with its delivery
 * state, storage/outbox-queue.ts). Times are Unix milliseconds (backoff and leases need them).
 */
import { defineEntity } from '@mikro-orm/core';
import { queueIndexes, queueProperties, type QueuedRow } from '../../storage/outbox-queue.js';

/**
 * A queued text: the E.164 number, the body (sealed at rest: it holds a one-time code) and when
 * the code it carries stops working, as its sender stated (null when it did not: the text has no
 * known end of use).
 */
export interface SmsOutboxRow extends QueuedRow {
  recipient: string;
  body: string;
  expiresAt?: number | null;
}

export const SmsOutboxEntity = defineEntity({
  name: 'LatchkeySmsOutbox',
  tableName: 'latchkey_sms_outbox',
  indexes: queueIndexes(),
  properties: (p) => ({
    // `_id`: the same definition passes MikroORM's MongoDB validation.
    id: p.string().primary().fieldName('_id').length(64),
    recipient: p.string().length(32),
    body: p.text(),
    expiresAt: p.bigint('number').fieldName('expires_at').nullable(),
    ...queueProperties(),
  }),
});
