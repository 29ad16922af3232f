/**
 * The outcomes of finished attempts, written as a group commit: an outcome that finds no write
 * running is written at once; the outcomes that finish while a write runs wait for it and are then
 * written together in one transaction. An idle outbox thus writes each outcome without delay, and
 * a busy one pays one commit for many attempts instead of one each. Each outcome is the row's next
 * state (fenced by its lease: storage/claim-rows.ts) and the answer in the attempt's log entry.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { Logger } from '../../core/logger.js';
import type { Storage } from '../../core/storage.js';
import { updateLeased } from '../../storage/index.js';
import { WebhookDeliveryEntity, WebhookLogEntity, type DeliveryRow, type DeliveryState } from './entities.js';

export interface AttemptOutcome {
  row: DeliveryRow;
  logId: string;
  state: DeliveryState;
  attempt: number;
  nextAttemptAt: number;
  lastError: string | null;
  httpStatus: number;
  /** The excerpt of the answer, or why none came. */
  response: string;
  /** When the attempt ended (ms). */
  at: number;
}

export interface OutcomeWriter {
  /** Writes an outcome; resolves once it is committed. */
  record(outcome: AttemptOutcome): Promise<void>;
  /** The transactions committed so far (each carries one or more outcomes). */
  readonly commits: number;
}

interface Waiting {
  outcome: AttemptOutcome;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export function createOutcomeWriter(storage: Storage, logger: Logger): OutcomeWriter {
  let waiting: Waiting[] = [];
  let writing = false;
  let commits = 0;

  async function write(tx: EntityManager, outcome: AttemptOutcome): Promise<void> {
    const { row } = outcome;
    const held = await updateLeased(tx, WebhookDeliveryEntity, row, {
      state: outcome.state,
      attempts: outcome.attempt,
      nextAttemptAt: outcome.nextAttemptAt,
      lastError: outcome.lastError,
      leaseUntil: null,
      leaseOwner: null,
      updatedAt: outcome.at,
    });
    if (!held) logger.warn({ delivery: row.id }, 'webhooks: a delivery lease ran out during its attempt');
    // The attempt happened either way, so its log entry gets the answer either way.
    await tx.nativeUpdate(
      WebhookLogEntity,
      { id: outcome.logId } as never,
      { httpStatus: outcome.httpStatus, response: outcome.response, updatedAt: Math.floor(outcome.at / 1000) } as never,
    );
  }

  async function drain(): Promise<void> {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await storage.em().transactional(async (tx) => {
          for (const { outcome } of batch) await write(tx, outcome);
        });
        commits++;
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    writing = false;
  }

  return {
    record: (outcome) =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ outcome, resolve, reject });
        if (!writing) void drain();
      }),
    get commits() {
      return commits;
    },
  };
}
