/**
 * The webhook tables: the registered webhooks (schema.graphql `Webhook`), the delivery outbox (one
 * row per event and webhook, leased by one worker at a time: storage/claim-rows.ts) and the
 * delivery log (schema.graphql `WebhookLog`, one row per attempt). Webhook and log times are Unix
 * seconds as the contract shows them; the outbox keeps milliseconds, which backoff and leases need.
 */
import { defineEntity } from '@mikro-orm/core';

export interface WebhookRow {
  id: string;
  eventName: string;
  eventDescription: string | null;
  endpoint: string;
  enabled: boolean;
  /** JSON text of a string map. */
  headers: string | null;
  createdAt: number;
  updatedAt: number;
}

export const WebhookEntity = defineEntity({
  name: 'LatchkeyWebhook',
  tableName: 'latchkey_webhooks',
  indexes: [{ properties: ['eventName'] }, { properties: ['createdAt'] }],
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    eventName: p.string().fieldName('event_name').length(128),
    eventDescription: p.string().fieldName('event_description').length(1024).nullable(),
    endpoint: p.string().length(2048),
    enabled: p.boolean(),
    headers: p.text().nullable(),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface DeliveryRow {
  id: string;
  webhookId: string;
  eventName: string;
  /** The exact JSON text sent and signed. */
  body: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number;
  leaseUntil: number | null;
  leaseOwner: string | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export const WebhookDeliveryEntity = defineEntity({
  name: 'LatchkeyWebhookDelivery',
  tableName: 'latchkey_webhook_deliveries',
  indexes: [{ properties: ['state', 'nextAttemptAt'] }, { properties: ['webhookId'] }],
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    webhookId: p.string().fieldName('webhook_id').length(64),
    eventName: p.string().fieldName('event_name').length(128),
    body: p.text(),
    state: p.string().length(16),
    attempts: p.integer(),
    nextAttemptAt: p.bigint('number').fieldName('next_attempt_at'),
    leaseUntil: p.bigint('number').fieldName('lease_until').nullable(),
    leaseOwner: p.string().fieldName('lease_owner').length(64).nullable(),
    lastError: p.string().fieldName('last_error').length(512).nullable(),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});

export interface WebhookLogRow {
  id: string;
  webhookId: string;
  deliveryId: string | null;
  attempt: number;
  /** The answer's status; 0 when no answer came (network error, timeout, refused address). */
  httpStatus: number;
  /** A bounded excerpt of the answer, or the reason no answer came. */
  response: string | null;
  request: string | null;
  createdAt: number;
  updatedAt: number;
}

export const WebhookLogEntity = defineEntity({
  name: 'LatchkeyWebhookLog',
  tableName: 'latchkey_webhook_logs',
  indexes: [{ properties: ['webhookId', 'createdAt'] }, { properties: ['createdAt'] }],
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    webhookId: p.string().fieldName('webhook_id').length(64),
    deliveryId: p.string().fieldName('delivery_id').length(64).nullable(),
    attempt: p.integer(),
    httpStatus: p.integer().fieldName('http_status'),
    response: p.text().nullable(),
    request: p.text().nullable(),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});
