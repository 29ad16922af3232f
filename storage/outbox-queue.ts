/**
 * A durable outbox of messages to a peer (mail to the SMTP server, texts to the SMS gateway):
 * every message is a row in the main database before anything is sent, and a worker in each node
 * sends the rows that are due. The plugin that owns a queue gives it the row's own columns and the
 * send; this module holds the delivery state they share.
 *
 * Claiming is a conditional update, portable to every database MikroORM drives (MongoDB
 * included): a node takes a row by setting its lease only where nobody holds one (`lease_until`
 * null or past) and the attempt count is still the one it read, and only the update that changed
 * the row may send it, so two nodes never send the same row at once. The same update counts the
 * attempt and marks it cut off: an attempt is logged before its request leaves, so one cut off by
 * a crash shows as an attempt when the row is sent again after the lease runs out (also after a
 * restart). A failed attempt frees the row with the next attempt pushed back exponentially; after
 * the last attempt it is marked `failed`, logged and counted. Delivery is at least once: a crash
 * between the peer's acceptance and the row's update sends that message again, as a second
 * attempt on the row. A queue whose messages stop being of use at a time of their own (a texted
 * code that expires) says so with `expiry`: such a row is not sent past that time, and no retry
 * is scheduled after it; the row is given up instead, as after its last attempt.
 */
import { p, type EntityManager } from '@mikro-orm/core';
import type { Logger } from '../core/logger.js';
import type { EntityDefinition, Storage } from '../core/storage.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import { newId } from './ids.js';

export const QUEUE_STATUSES = ['pending', 'sent', 'failed'] as const;
export type QueueStatus = (typeof QUEUE_STATUSES)[number];

/** The delivery state every queued row has beside its own columns. Times are Unix milliseconds. */
export interface QueuedRow {
  id: string;
  status: QueueStatus;
  /** Attempts started: counted before the request leaves. */
  attempts: number;
  /** When the next attempt may start. */
  nextAttemptAt: number;
  /** A node that claimed the row sends it until then; null when nobody holds it. */
  leaseUntil: number | null;
  /** Why the last attempt failed; `CUT_OFF` while an attempt is in flight or after one a crash ended. */
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
}

type QueueKey = keyof QueuedRow;

/** The columns of `QueuedRow` (the id aside), for a queue's `defineEntity`. */
export const queueProperties = () => ({
  status: p.string().length(16),
  attempts: p.integer(),
  nextAttemptAt: p.bigint('number').fieldName('next_attempt_at'),
  leaseUntil: p.bigint('number').fieldName('lease_until').nullable(),
  lastError: p.string().fieldName('last_error').length(512).nullable(),
  createdAt: p.bigint('number').fieldName('created_at'),
  sentAt: p.bigint('number').fieldName('sent_at').nullable(),
});

/** The indexes the worker and the admin's listing read by. */
export const queueIndexes = () => [
  { properties: ['status' as const, 'nextAttemptAt' as const] },
  { properties: ['createdAt' as const] },
];

/** The error an attempt carries until its outcome is written: what a crash leaves behind. */
export const CUT_OFF = 'no outcome recorded yet: the attempt is in flight, or was cut off before it finished';

/** How often an idle worker looks for due rows (others' rows, retries); new rows wake it at once. */
const POLL_MS = 1_000;
/** Rows taken per look. */
const BATCH = 10;
/** Longest wait between two attempts, whatever the backoff says. */
const MAX_BACKOFF_MS = 60 * 60 * 1000;

/** What the plugin that owns a queue configures: where it lives, how often it tries, who hears of failures. */
export interface QueueSettings {
  storage: Storage;
  logger: Logger;
  maxAttempts: number;
  retryDelayMs: number;
  /** Told of every terminal failure (a metric). */
  onFailed?: () => void;
  /** Told of every failed attempt that will be retried (a metric). */
  onRetry?: () => void;
  /** How often an idle worker looks; default one second. */
  pollMs?: number;
}

export interface OutboxQueueOptions<R extends QueuedRow> extends QueueSettings {
  entity: EntityDefinition;
  /** What the queue carries, for log lines: `mail`, `SMS`. */
  label: string;
  /** Where an admin finds a row given up on, for the log line that says so. */
  listedBy: string;
  /** Sends one row; throws when the peer did not take it. Absent: rows wait, unsent. */
  send: ((row: R) => Promise<void>) | undefined;
  /** A claim's lifetime: longer than one attempt may take. */
  leaseMs: number;
  /**
   * When a row stops being of use (Unix ms; null: never), and the error a row given up for it
   * carries. Absent: rows have no such time (mail). Read with the row claimed, right before the
   * send: a row past it is marked `failed` without a send, its attempt count left as it was (no
   * request left). A failed attempt whose retry would start after it is the row's last: the row
   * is marked `failed` at once. Either is counted, logged and retried by an admin like any
   * other given-up row.
   */
  expiry?: { of(row: R): number | null; error: string };
}

export interface OutboxQueue<R extends QueuedRow> {
  /**
   * Stores a message as a pending row. With `unit` the row joins that unit of work (the change
   * that causes the message, core/unit-of-work.ts) and is written by its commit, after which the
   * worker looks; without, it is written at once.
   */
  add(fields: Omit<R, QueueKey>, unit?: UnitOfWork): Promise<void>;
  /** Starts the worker (no-op without a send: rows wait until the peer is configured). */
  start(): void;
  /** Stops the worker and waits for the attempt in flight. */
  stop(): Promise<void>;
  stats(): { sent: number; retried: number; failed: number };
  list(q: { status?: string; page: number; limit: number }): Promise<{ rows: R[]; total: number }>;
  /** Puts a failed row back in the queue (an admin's retry). False when there is no such failed row. */
  retry(id: string): Promise<boolean>;
}

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A row as read, with the numbers some drivers answer as strings (bigint columns) made numbers. */
function toRow<R extends QueuedRow>(r: R): R {
  return {
    ...r,
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.nextAttemptAt),
    leaseUntil: nullableNumber(r.leaseUntil),
    createdAt: Number(r.createdAt),
    sentAt: nullableNumber(r.sentAt),
  };
}

export function createOutboxQueue<R extends QueuedRow>(o: OutboxQueueOptions<R>): OutboxQueue<R> {
  const counts = { sent: 0, retried: 0, failed: 0 };
  const pollMs = o.pollMs ?? POLL_MS;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = true;
  let inFlight: Promise<void> | undefined;
  let again = false;

  const free = () => ({ $or: [{ leaseUntil: null }, { leaseUntil: { $lt: Date.now() } }] });

  /**
   * Takes one row and logs its attempt, in one update: the lease when this node's update changed
   * the row, else null (another node took it, or counted an attempt since the read).
   */
  async function claim(row: R): Promise<number | null> {
    const until = Date.now() + o.leaseMs;
    const changed = await o.storage
      .em()
      .nativeUpdate(
        o.entity,
        { id: row.id, status: 'pending', attempts: row.attempts, ...free() } as never,
        { leaseUntil: until, attempts: row.attempts + 1, lastError: CUT_OFF } as never,
      );
    return changed === 1 ? until : null;
  }

  async function finish(em: EntityManager, row: R, lease: number, changes: Partial<QueuedRow>): Promise<void> {
    await em.nativeUpdate(o.entity, { id: row.id, leaseUntil: lease } as never, changes as never);
  }

  /** Marks a claimed row failed for good: counted, logged where admins find it. */
  async function giveUp(
    em: EntityManager,
    row: R,
    lease: number,
    changes: Partial<QueuedRow>,
    log: Record<string, unknown>,
    why: string,
  ): Promise<void> {
    await finish(em, row, lease, { ...changes, status: 'failed', leaseUntil: null });
    counts.failed++;
    o.onFailed?.();
    o.logger.error({ outboxId: row.id, ...log }, `${o.label} ${why}; it is listed by ${o.listedBy}`);
  }

  async function deliver(row: R, lease: number): Promise<void> {
    const em = o.storage.em();
    const attempts = row.attempts + 1;
    const expiresAt = o.expiry?.of(row) ?? null;
    if (expiresAt !== null && expiresAt <= Date.now()) {
      // The claim counted an attempt that never leaves: the count goes back to what it was.
      await giveUp(
        em,
        row,
        lease,
        { attempts: row.attempts, lastError: o.expiry!.error },
        { attempts: row.attempts, expiresAt },
        'not sent: it expired before it could be sent',
      );
      return;
    }
    try {
      await o.send!(row);
    } catch (err) {
      const reason = String((err as Error)?.message ?? err).slice(0, 500);
      if (attempts >= o.maxAttempts) {
        await giveUp(em, row, lease, { lastError: reason }, { attempts, err: reason }, 'delivery failed for good');
        return;
      }
      const wait = Math.min(o.retryDelayMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);
      const next = Date.now() + wait;
      if (expiresAt !== null && next > expiresAt) {
        await giveUp(
          em,
          row,
          lease,
          { lastError: o.expiry!.error },
          { attempts, err: reason, expiresAt, retryAt: next },
          'delivery failed, and the next attempt would come after it expires',
        );
        return;
      }
      await finish(em, row, lease, { lastError: reason, nextAttemptAt: next, leaseUntil: null });
      counts.retried++;
      o.onRetry?.();
      o.logger.warn(
        { outboxId: row.id, attempts, retryInMs: wait, err: reason },
        `${o.label} delivery failed, will retry`,
      );
      return;
    }
    await finish(em, row, lease, { status: 'sent', sentAt: Date.now(), leaseUntil: null, lastError: null });
    counts.sent++;
  }

  /** One look: sends every due row this node can claim, oldest first. */
  async function sweep(): Promise<void> {
    for (;;) {
      const due = (await o.storage
        .em()
        .find(o.entity, { status: 'pending', nextAttemptAt: { $lte: Date.now() }, ...free() } as never, {
          orderBy: { nextAttemptAt: 'asc', id: 'asc' } as never,
          limit: BATCH,
        })) as unknown as R[];
      if (due.length === 0 || stopped) return;
      for (const raw of due) {
        if (stopped) return;
        const row = toRow(raw);
        const lease = await claim(row);
        if (lease !== null) await deliver(row, lease);
      }
      if (due.length < BATCH) return;
    }
  }

  function schedule(ms: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  }

  function run(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    again = false;
    inFlight = sweep()
      .catch((err: unknown) => o.logger.error({ err }, `${o.label} outbox sweep failed`))
      .finally(() => {
        running = false;
        inFlight = undefined;
        schedule(again ? 0 : pollMs);
      });
  }

  return {
    async add(fields, unit) {
      const now = Date.now();
      const row = {
        ...fields,
        id: newId(),
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        leaseUntil: null,
        lastError: null,
        createdAt: now,
        sentAt: null,
      } satisfies QueuedRow;
      if (unit) {
        unit.em.create(o.entity, row as never);
        unit.afterCommit(run);
        return;
      }
      const em = o.storage.em();
      em.create(o.entity, row as never);
      await em.flush();
      run();
    },
    start() {
      if (!o.send || !stopped) return;
      stopped = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
    stats: () => ({ ...counts }),
    async list({ status, page, limit }) {
      const [rows, total] = await o.storage.em().findAndCount(o.entity, (status ? { status } : {}) as never, {
        orderBy: { createdAt: 'desc', id: 'desc' } as never,
        limit,
        offset: (page - 1) * limit,
      });
      return { rows: (rows as unknown as R[]).map(toRow), total };
    },
    async retry(id) {
      const changed = await o.storage
        .em()
        .nativeUpdate(
          o.entity,
          { id, status: 'failed' } as never,
          { status: 'pending', attempts: 0, nextAttemptAt: Date.now(), leaseUntil: null } as never,
        );
      if (changed === 1) run();
      return changed === 1;
    },
  };
}
