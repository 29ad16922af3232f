/**
 * The email plugin's tables: the durable outbox (`mail_outbox`: every message to send, with its
 * delivery state) and the admin's templates (schema.graphql `EmailTemplate`, one per event). Times
 * are Unix milliseconds in the outbox (backoff and leases need them) and Unix seconds in the
 * templates (the API's Int64 fields).
 */
import { defineEntity } from '@mikro-orm/core';

export const OUTBOX_STATUSES = ['pending', 'sent', 'failed'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

export interface OutboxRow {
  id: string;
  event: string;
  recipient: string;
  subject: string;
  html: string;
  text: string;
  status: OutboxStatus;
  attempts: number;
  /** When the next attempt may start. */
  nextAttemptAt: number;
  /** A node that claimed the row sends it until then; null when nobody holds it. */
  leaseUntil: number | null;
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
}

export const MailOutboxEntity = defineEntity({
  name: 'LatchkeyMailOutbox',
  tableName: 'latchkey_mail_outbox',
  indexes: [{ properties: ['status', 'nextAttemptAt'] }, { properties: ['createdAt'] }],
  properties: (p) => ({
    // `_id`: the same definition passes MikroORM's MongoDB validation.
    id: p.string().primary().fieldName('_id').length(64),
    event: p.string().length(64),
    recipient: p.string().length(320),
    subject: p.string().length(998),
    html: p.text(),
    text: p.text(),
    status: p.string().length(16),
    attempts: p.integer(),
    nextAttemptAt: p.bigint('number').fieldName('next_attempt_at'),
    leaseUntil: p.bigint('number').fieldName('lease_until').nullable(),
    lastError: p.string().fieldName('last_error').length(512).nullable(),
    createdAt: p.bigint('number').fieldName('created_at'),
    sentAt: p.bigint('number').fieldName('sent_at').nullable(),
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
