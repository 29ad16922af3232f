/**
 * The outcomes of finished attempts, written as a group commit: an outcome that finds no write
 * running is written at once; the outcomes that finish while a write runs wait for it and are then
 * written together in one transaction. An idle outbox thus writes each outcome without delay, and
 * a busy one pays one commit for many attempts instead of one each. Each outcome is the row's next
 * state (fenced by its lease: storage/claim-rows.ts) and the answer in the attempt's log entry;
 * rows and entries that change alike share one statement.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { Logger } from '../../core/logger.js';
import type { Storage } from '../../core/storage.js';
import { WebhookDeliveryEntity, WebhookLogEntity, type DeliveryRow, type DeliveryState } from './entities.js';

export interface AttemptOutcome {
  row: DeliveryRow;
  logId: string;
  state: DeliveryState;
  /** When a retry is due (read only for `pending`). */
  nextAttemptAt: number;
  lastError: string | null;
  httpStatus: number;
  /** The excerpt of the answer, or why none came. */
  response: string;
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

  /**
   * One statement per group of rows that change alike: the deliveries by next state (a retry's
   * own time, a failure's own error) and claim (the lease that fences them), the log entries by
   * answer. Under a steady stream most outcomes are the same 2xx from a few claims, so a batch is
   * a handful of statements whatever its size.
   */
  async function write(tx: EntityManager, batch: readonly AttemptOutcome[]): Promise<void> {
    const at = Date.now();
    const rows = new Map<string, { changes: Record<string, unknown>; outcomes: AttemptOutcome[] }>();
    const logs = new Map<string, { changes: Record<string, unknown>; ids: string[] }>();
    for (const outcome of batch) {
      const { row } = outcome;
      const changes: Record<string, unknown> = {
        state: outcome.state,
        lastError: outcome.lastError,
        leaseUntil: null,
        leaseOwner: null,
        updatedAt: at,
        // A delivered or failed row keeps its due time; only a retry gets a new one.
        ...(outcome.state === 'pending' ? { nextAttemptAt: outcome.nextAttemptAt } : {}),
      };
      const rowKey = JSON.stringify([changes, row.leaseUntil, row.leaseOwner]);
      const group = rows.get(rowKey) ?? rows.set(rowKey, { changes, outcomes: [] }).get(rowKey)!;
      group.outcomes.push(outcome);
      const answer = { httpStatus: outcome.httpStatus, response: outcome.response, updatedAt: Math.floor(at / 1000) };
      const logKey = JSON.stringify(answer);
      const entries = logs.get(logKey) ?? logs.set(logKey, { changes: answer, ids: [] }).get(logKey)!;
      entries.ids.push(outcome.logId);
    }
    for (const { changes, outcomes } of rows.values()) {
      const [{ row }] = outcomes as [AttemptOutcome];
      // Fenced by the lease of the claim the rows came from: a row another node holds now is
      // left to it.
      const held = await tx.nativeUpdate(
        WebhookDeliveryEntity,
        { id: { $in: outcomes.map((o) => o.row.id) }, leaseUntil: row.leaseUntil, leaseOwner: row.leaseOwner } as never,
        changes as never,
      );
      if (held < outcomes.length) {
        logger.warn(
          { deliveries: outcomes.map((o) => o.row.id), lost: outcomes.length - held },
          'webhooks: a delivery lease ran out during its attempt',
        );
      }
    }
    // The attempts happened either way, so their log entries get the answers either way.
    for (const { changes, ids } of logs.values()) {
      await tx.nativeUpdate(WebhookLogEntity, { id: { $in: ids } } as never, changes as never);
    }
  }

  async function drain(): Promise<void> {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await storage.em().transactional((tx) =>
          write(
            tx,
            batch.map((w) => w.outcome),
          ),
        );
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
