/**
 * The sms plugin's table: the durable outbox (`sms_outbox`: every text to send, with its delivery
 * state, storage/outbox-queue.ts). Times are Unix milliseconds (backoff and leases need them).
 */
import { defineEntity } from '@mikro-orm/core';
import { queueIndexes, queueProperties, type QueuedRow } from '../../storage/outbox-queue.js';

/** A queued text: the E.164 number and the body (sealed at rest: it holds a one-time code). */
export interface SmsOutboxRow extends QueuedRow {
  recipient: string;
  body: string;
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
    ...queueProperties(),
  }),
});
