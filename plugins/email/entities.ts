/**
 * The email plugin's tables: the durable outbox (`mail_outbox`: every message to send, with its
 * delivery state) and the admin's templates (schema.graphql `EmailTemplate`, one per event). Times
 * are Unix milliseconds in the outbox (backoff and leases need them) and Unix seconds in the
 * templates (the API's Int64 fields).
 */
import { defineEntity } from '@mikro-orm/core';
import { queueIndexes, queueProperties, type QueuedRow } from '../../storage/outbox-queue.js';

/** A queued mail: its own columns beside the delivery state every outbox row has (storage/outbox-queue.ts). */
export interface OutboxRow extends QueuedRow {
  event: string;
  recipient: string;
  subject: string;
  html: string;
  text: string;
}

export const MailOutboxEntity = defineEntity({
  name: 'LatchkeyMailOutbox',
  tableName: 'latchkey_mail_outbox',
  indexes: queueIndexes(),
  properties: (p) => ({
    // `_id`: the same definition passes MikroORM's MongoDB validation.
    id: p.string().primary().fieldName('_id').length(64),
    event: p.string().length(64),
    recipient: p.string().length(320),
    subject: p.string().length(998),
    html: p.text(),
    text: p.text(),
    ...queueProperties(),
  }),
});

export interface TemplateRow {
  id: string;
  eventName: string;
  subject: string;
  template: string;
  design: string | null;
  createdAt: number;
  updatedAt: number;
}

export const EmailTemplateEntity = defineEntity({
  name: 'LatchkeyEmailTemplate',
  tableName: 'latchkey_email_templates',
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    eventName: p.string().fieldName('event_name').length(64).unique(),
    subject: p.string().length(998),
    template: p.text(),
    design: p.text().nullable(),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});
