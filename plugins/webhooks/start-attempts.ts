/**
 * The start of the attempts of one claim, written with the claim (storage/claim-rows.ts
 * `withClaimed`; the claim itself has raised each row's attempt count with its lease): the
 * webhooks of the claimed rows are read with one query; a row whose webhook was deleted or
 * disabled is cancelled, its count lowered again; every other row has its attempt logged before
 * its request leaves, all entries in one insert. An attempt cut off by a crash thus stays in the
 * log as one without an answer, so its retry after a restart is a logged retry, not a second
 * delivery the log cannot explain.
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

/**
 * Logs an attempt for each claimed row (`attempts` already counting it) whose webhook is there and
 * enabled; cancels the rest.
 */
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
        attempts: row.attempts - 1,
        lastError: webhook ? 'the webhook is disabled' : 'the webhook was deleted',
        leaseUntil: null,
        leaseOwner: null,
        updatedAt: now,
      });
      continue;
    }
    const logId = newId();
    tx.create(WebhookLogEntity, {
      id: logId,
      webhookId: row.webhookId,
      deliveryId: row.id,
      attempt: row.attempts,
      httpStatus: 0,
      response: CUT_OFF,
      request: row.body,
      createdAt,
      updatedAt: createdAt,
    } as never);
    started.push({ row, webhook, attempt: row.attempts, logId });
  }
  await tx.flush();
  return started;
}
