/**
 * The start of the attempts of one claim, written with the claim (storage/claim-rows.ts
 * `withClaimed`): the webhooks of the claimed rows are read with one query; a row whose webhook was
 * deleted or disabled is cancelled; every other row has its attempt counted and logged before its
 * request leaves. An attempt cut off by a crash thus stays in the log as one without an answer,
 * so its retry after a restart is a logged retry, not a second delivery the log cannot explain.
 */
import type { EntityManager } from '@mikro-orm/core';
import { newId, updateLeased } from '../../storage/index.js';
import {
  WebhookDeliveryEntity,
  WebhookEntity,
  WebhookLogEntity,
  type DeliveryRow,
  type WebhookRow,
} from './entities.js';

/** The log entry of an attempt whose answer was never recorded (the process stopped during it). */
export const CUT_OFF = 'no answer recorded: the attempt was cut off before its answer was read';

export interface StartedAttempt {
  row: DeliveryRow;
  webhook: WebhookRow;
  /** This attempt's number (1 for the first). */
  attempt: number;
  /** The log entry written for it. */
  logId: string;
}

/** Counts and logs an attempt for each row whose webhook is there and enabled; cancels the rest. */
export async function startAttempts(
  tx: EntityManager,
  rows: readonly DeliveryRow[],
  now: number,
): Promise<StartedAttempt[]> {
  const ids = [...new Set(rows.map((row) => row.webhookId))];
  const found = (await tx.find(WebhookEntity, { id: { $in: ids } } as never)) as unknown as WebhookRow[];
  const webhooks = new Map(found.map((webhook) => [webhook.id, webhook]));
  const started: StartedAttempt[] = [];
  const createdAt = Math.floor(now / 1000);
  for (const row of rows) {
    const webhook = webhooks.get(row.webhookId);
    if (!webhook || !webhook.enabled) {
      await updateLeased(tx, WebhookDeliveryEntity, row, {
        state: 'cancelled',
        lastError: webhook ? 'the webhook is disabled' : 'the webhook was deleted',
        leaseUntil: null,
        leaseOwner: null,
        updatedAt: now,
      });
      continue;
    }
    const attempt = row.attempts + 1;
    if (!(await updateLeased(tx, WebhookDeliveryEntity, row, { attempts: attempt, updatedAt: now }))) continue;
    const logId = newId();
    tx.create(WebhookLogEntity, {
      id: logId,
      webhookId: row.webhookId,
      deliveryId: row.id,
      attempt,
      httpStatus: 0,
      response: CUT_OFF,
      request: row.body,
      createdAt,
      updatedAt: createdAt,
    } as never);
    started.push({ row, webhook, attempt, logId });
  }
  return started;
}
