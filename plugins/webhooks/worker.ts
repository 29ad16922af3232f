/**
 * The delivery worker: claims due outbox rows (storage/claim-rows.ts: one node at a time per
 * row), and in the claim's own transaction counts and logs each row's attempt before its request
 * leaves (./start-attempts.ts). It makes the request through the guarded client, then writes the
 * answer to that log entry and the row's next state: delivered, pending again after a backoff, or
 * failed for good (the give-up state) after the last attempt or a final answer; outcomes that
 * finish together share one commit (./outcome-writer.ts). Up to `concurrency` attempts run at
 * once, a freed slot refilled by the next claim, so a slow receiver holds only its own slots. A
 * webhook runs up to `perWebhookConcurrency` attempts at once, and more only while as many slots
 * stay free for the others, so one whose endpoint never answers cannot take every slot for its
 * deadline while other webhooks wait, and a slow one with a backlog still uses the slots nobody
 * else needs. It polls, and is also woken at once when this process enqueues. Rows left by a
 * stopped or killed process are taken again once their lease runs out, so a restart resumes
 * pending deliveries.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../core/logger.js';
import type { Storage } from '../../core/storage.js';
import { claimRows } from '../../storage/index.js';
import { findOutboundError, type OutboundErrorCode, type OutboundService } from '../outbound/index.js';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signature } from './delivery-body.js';
import { WebhookDeliveryEntity, type DeliveryRow, type DeliveryState } from './entities.js';
import { createOutcomeWriter } from './outcome-writer.js';
import { backoffMs, isRetryable, type RetryPolicy } from './retry-policy.js';
import { startAttempts, type StartedAttempt } from './start-attempts.js';

export interface DeliveryTiming extends RetryPolicy {
  /** Deadline of one attempt (connect, answer and body). */
  timeoutMs: number;
  /** How often the outbox is looked at when nothing woke the worker. */
  pollMs: number;
  /** How many rows one look claims at most. */
  batch: number;
  /** How many attempts run at once; a finished one makes room for the next due row. */
  concurrency: number;
  /**
   * While attempts are in flight, how long an enqueue waits for more events before the outbox is
   * claimed from (a finished attempt waits too when fewer than a quarter of the slots are free).
   */
  gatherMs: number;
  /**
   * How many of those attempts one webhook may run whatever the others do. Beyond that it takes a
   * free slot only while this many slots stay free after it (room for another webhook's share);
   * its further due rows stay queued (not claimed, no attempt counted) until a slot frees.
   */
  perWebhookConcurrency: number;
  /** How much of an answer the log keeps. */
  responseExcerptChars: number;
  /** How long a claim outlives its attempt's deadline before another node may take the row. */
  leaseMarginMs: number;
}

export interface WorkerOptions {
  storage: Storage;
  outbound: OutboundService;
  clientSecret: () => string;
  logger: Logger;
  timing: DeliveryTiming;
  /** Told of every settled attempt and every row cancelled at its claim, once committed. */
  onSettled?: (outcome: SettledAs) => void;
}

/** How an attempt or a claimed row ended: `retry` is an attempt that failed and will be made again. */
export type SettledAs = 'delivered' | 'retry' | 'failed' | 'cancelled';

export interface DeliveryWorker {
  start(): void;
  /** Looks at the outbox now (after an enqueue). */
  wake(): void;
  /** Waits until nothing is due or in flight (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
  /** Attempts running now. */
  inFlight(): number;
}

/** Answers are read up to this many bytes; the log keeps `responseExcerptChars` of them. */
const MAX_ANSWER_BYTES = 64 * 1024;

export { CUT_OFF } from './start-attempts.js';

export function createDeliveryWorker(o: WorkerOptions): DeliveryWorker {
  const owner = randomUUID();
  const { timing } = o;
  // A lease outlives the attempt it covers by far: a node whose attempt is still running keeps
  // its row, and another node takes it only after a crash.
  const leaseMs = timing.timeoutMs * 2 + timing.leaseMarginMs;
  const slots = Math.max(1, Math.floor(timing.concurrency));
  const perWebhook = Math.max(1, Math.floor(timing.perWebhookConcurrency));
  // Free slots at which a claim starts at once while attempts are in flight.
  const gatherAt = Math.max(1, Math.min(timing.batch, Math.floor(slots / 4)));
  // Slots kept free for other webhooks while one runs beyond its share.
  const reserve = Math.min(perWebhook, slots - 1);
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;

  const outcomes = createOutcomeWriter(o.storage, o.logger);

  async function attempt({ row, webhook, attempt, logId }: StartedAttempt): Promise<void> {
    const extra = webhook.headers ? (JSON.parse(webhook.headers) as Record<string, string>) : {};
    let status = 0;
    let excerpt: string;
    let error: OutboundErrorCode | undefined;
    try {
      const answer = await o.outbound.fetch(webhook.endpoint, {
        method: 'POST',
        headers: {
          ...extra,
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: signature(row.body, o.clientSecret()),
          [DELIVERY_ID_HEADER]: row.id,
        },
        body: row.body,
        timeoutMs: timing.timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
      });
      status = answer.status;
      excerpt = answer.body.slice(0, timing.responseExcerptChars);
    } catch (err) {
      const outbound = findOutboundError(err);
      error = outbound?.code ?? 'network';
      excerpt = `${error}: ${outbound?.message ?? 'the request failed'}`.slice(0, timing.responseExcerptChars);
    }
    const delivered = status >= 200 && status < 300;
    const retry = !delivered && isRetryable(status, error) && attempt < timing.maxAttempts;
    const state: DeliveryState = delivered ? 'delivered' : retry ? 'pending' : 'failed';
    const done = Date.now();
    await outcomes.record({
      row,
      logId,
      state,
      nextAttemptAt: retry ? done + backoffMs(timing, attempt) : row.nextAttemptAt,
      lastError: delivered ? null : excerpt.slice(0, 512),
      httpStatus: status,
      response: excerpt,
    });
    o.onSettled?.(state === 'pending' ? 'retry' : state);
    if (state === 'failed') {
      o.logger.warn(
        { delivery: row.id, webhook: row.webhookId, attempts: attempt, status, error },
        'webhooks: delivery gave up',
      );
    }
  }

  // Up to `concurrency` attempts run at once, each on its own: a slot freed by one
  // attempt is filled by the next claim, so a receiver that answers slowly holds only the slots of
  // its own attempts and the others go on. A claim takes no more rows than there are free slots,
  // so every claimed row starts its attempt at once and no lease runs down in a local queue.
  const inFlight = new Set<Promise<void>>();
  // Attempts in flight per webhook id. A webhook at `perWebhook` takes another slot only while
  // `reserve` slots stay free after it; a row it cannot take is declined (no lease, no attempt
  // counted) and claimed later in the same order (oldest due first), here or on another node. Once
  // no more than `reserve` slots are free, webhooks at their share are left out of the claims.
  const perHook = new Map<string, number>();
  let claiming: Promise<void> | undefined;
  // The outbox may hold more due rows than the last claim took (it filled every free slot, or the
  // worker was woken meanwhile): the next freed slot looks again.
  let more = false;

  function launch(started: StartedAttempt): void {
    const { row } = started;
    perHook.set(row.webhookId, (perHook.get(row.webhookId) ?? 0) + 1);
    const done: Promise<void> = attempt(started)
      .catch((err: unknown) => o.logger.error({ err, delivery: row.id }, 'webhooks: attempt failed'))
      .finally(() => {
        inFlight.delete(done);
        const running = perHook.get(row.webhookId) ?? 1;
        if (running <= 1) perHook.delete(row.webhookId);
        else perHook.set(row.webhookId, running - 1);
        // A webhook at its share may have rows left queued for this freed place.
        if (running >= perWebhook) more = true;
        // A running claim loop sees the freed slot itself.
        if (more && !stopped && !claiming) request('slot');
      });
    inFlight.add(done);
  }

  async function claimWhileRoom(): Promise<void> {
    while (!stopped) {
      const room = slots - inFlight.size;
      if (room <= 0) {
        more = true;
        return;
      }
      more = false;
      const limit = Math.min(timing.batch, room);
      const full = room > reserve ? [] : [...perHook].filter(([, n]) => n >= perWebhook).map(([id]) => id);
      const taking = new Map<string, number>();
      let accepted = 0;
      // A row declined for its webhook's share: fewer slots are free at the next look, which
      // leaves that webhook out once only the reserve is left, and may find other webhooks' rows
      // behind the declined ones.
      let declined = false;
      let started: StartedAttempt[] = [];
      const rows = await claimRows<DeliveryRow>(o.storage, WebhookDeliveryEntity, {
        due: {
          state: 'pending',
          nextAttemptAt: { $lte: Date.now() },
          ...(full.length > 0 ? { webhookId: { $nin: full } } : {}),
        },
        orderBy: { nextAttemptAt: 'asc' },
        count: 'attempts',
        limit,
        owner,
        leaseMs,
        accept: (row) => {
          const n = taking.get(row.webhookId) ?? 0;
          const beyondShare = (perHook.get(row.webhookId) ?? 0) + n >= perWebhook;
          if (beyondShare && room - accepted - 1 < reserve) {
            declined = true;
            return false;
          }
          taking.set(row.webhookId, n + 1);
          accepted++;
          return true;
        },
        withClaimed: async (tx, claimed) => {
          started = await startAttempts(tx, claimed, Date.now());
        },
      });
      for (const attempt of started) launch(attempt);
      // Every claimed row is either started or cancelled (its webhook disabled or deleted).
      for (let i = started.length; i < rows.length; i++) o.onSettled?.('cancelled');
      if (rows.length < limit && !more && !declined) return;
    }
  }

  // A claim is a transaction of its own (on PostgreSQL a locking read and an update). Started at
  // every enqueue and every finished attempt, a steady stream of events is claimed one row at a
  // time, and the claims cost more statements than the deliveries; under a 320 requests/s soak
  // the outbox then fell a minute behind. So while attempts are in flight, an enqueue waits up to
  // `gatherMs` for the events after it, and a finished attempt with rows left behind it claims at
  // once only when a quarter of the slots are free (else within `gatherMs` too).
  let gathering: NodeJS.Timeout | undefined;
  function request(cause: 'enqueue' | 'slot'): void {
    if (stopped) return;
    const atOnce =
      claiming !== undefined ||
      inFlight.size === 0 ||
      timing.gatherMs <= 0 ||
      (cause === 'slot' && slots - inFlight.size >= gatherAt);
    if (atOnce) {
      void run();
      return;
    }
    more = true;
    if (gathering) return;
    gathering = setTimeout(() => {
      gathering = undefined;
      void run();
    }, timing.gatherMs);
    gathering.unref();
  }

  function run(): Promise<void> {
    if (gathering) {
      clearTimeout(gathering);
      gathering = undefined;
    }
    if (claiming) {
      more = true;
      return claiming;
    }
    claiming = claimWhileRoom()
      .catch((err: unknown) => {
        // The poll tries again; a failing outbox is not read again at every wake.
        more = false;
        o.logger.error({ err }, 'webhooks: the outbox could not be read');
      })
      .finally(() => {
        claiming = undefined;
        // A wake that came after the loop's last look: look once more while there is room.
        if (more && !stopped && inFlight.size < slots) request('slot');
        else schedule();
      });
    return claiming;
  }

  function schedule(): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), timing.pollMs);
    timer.unref();
  }

  /** Waits until no claim and no attempt is running. */
  async function settled(): Promise<void> {
    while (claiming || inFlight.size > 0) await Promise.all([claiming, ...inFlight]);
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      void run();
    },
    wake() {
      request('enqueue');
    },
    idle: settled,
    inFlight: () => inFlight.size,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(gathering);
      await settled();
    },
  };
}
