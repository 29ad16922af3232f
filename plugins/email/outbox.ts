/**
 * The durable outbox: every mail is a `mail_outbox` row in the main database before anything is
 * sent, and a worker in each node sends the rows that are due.
 *
 * Claiming is a conditional update, portable to every database MikroORM drives: a node takes a
 * row by setting its lease only where nobody holds one (`lease_until` null or past), and only
 * the update that changed the row may send it, so two nodes never send the same row at once.
 * A failed attempt frees the row with the next attempt pushed back exponentially; after
 * `--email-max-attempts` it is marked `failed`, logged and counted. A process that dies while
 * holding a row leaves the lease to run out, and the row is sent by whoever looks next (also
 * after a restart). Delivery is at least once: a crash between the SMTP server's acceptance and
 * the row's update sends that mail again.
 */
import type { Logger } from '../../core/logger.js';
import type { Storage } from '../../core/storage.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { newId } from '../../storage/index.js';
import { MailOutboxEntity, type OutboxRow } from './entities.js';
import { SMTP_TIMEOUT_MS, type MailTransport, type OutgoingMail } from './transport.js';

/** A claim's lifetime: longer than one SMTP attempt may take. */
export const LEASE_MS = 3 * SMTP_TIMEOUT_MS;
/** How often an idle worker looks for due rows (others' rows, retries); new rows wake it at once. */
const POLL_MS = 1_000;
/** Rows taken per look. */
const BATCH = 10;
/** Longest wait between two attempts, whatever the backoff says. */
const MAX_BACKOFF_MS = 60 * 60 * 1000;

export interface OutboxOptions {
  storage: Storage;
  transport: MailTransport | undefined;
  logger: Logger;
  maxAttempts: number;
  retryDelayMs: number;
  /** Told of every terminal failure (a metric). */
  onFailed?: () => void;
  /** Told of every failed attempt that will be retried (a metric). */
  onRetry?: () => void;
  /**
   * Seals the rendered bodies at rest: they hold one-time codes and sign-in links, which the
   * database must not keep in plain text (secrets at rest are hashed or sealed with
   * --encryption-key). Without it bodies are stored as given.
   */
  bodies?: BodySealer;
}

export interface BodySealer {
  seal(text: string): string;
  /** Null when the body was not sealed by this key (a changed --encryption-key). */
  open(sealed: string): string | null;
}

export interface Outbox {
  /**
   * Stores a mail as a pending row. With `unit` the row joins that unit of work (the change that
   * causes the mail, core/unit-of-work.ts) and is written by its commit, after which the worker
   * looks; without, it is written at once.
   */
  add(event: string, mail: OutgoingMail, unit?: UnitOfWork): Promise<void>;
  /** Starts the worker (no-op without a transport: mail waits until SMTP is configured). */
  start(): void;
  /** Stops the worker and waits for the attempt in flight. */
  stop(): Promise<void>;
  stats(): { sent: number; retried: number; failed: number };
  list(q: { status?: string; page: number; limit: number }): Promise<{ rows: OutboxRow[]; total: number }>;
  /** Puts a failed row back in the queue (an admin's retry). False when there is no such failed row. */
  retry(id: string): Promise<boolean>;
}

const numberOf = (v: unknown): number => Number(v);
const toRow = (r: OutboxRow): OutboxRow => ({
  ...r,
  attempts: numberOf(r.attempts),
  nextAttemptAt: numberOf(r.nextAttemptAt),
  leaseUntil: r.leaseUntil === null || r.leaseUntil === undefined ? null : numberOf(r.leaseUntil),
  createdAt: numberOf(r.createdAt),
  sentAt: r.sentAt === null || r.sentAt === undefined ? null : numberOf(r.sentAt),
});

export function createOutbox(o: OutboxOptions): Outbox {
  const counts = { sent: 0, retried: 0, failed: 0 };
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = true;
  let inFlight: Promise<void> | undefined;
  let again = false;

  const free = () => ({ $or: [{ leaseUntil: null }, { leaseUntil: { $lt: Date.now() } }] });

  /** Takes one row: true only for the update that set this node's lease. */
  async function claim(id: string): Promise<number | null> {
    const until = Date.now() + LEASE_MS;
    const changed = await o.storage
      .em()
      .nativeUpdate(MailOutboxEntity, { id, status: 'pending', ...free() } as never, { leaseUntil: until } as never);
    return changed === 1 ? until : null;
  }

  async function deliver(row: OutboxRow, lease: number): Promise<void> {
    const em = o.storage.em();
    const held = { id: row.id, leaseUntil: lease } as never;
    try {
      const html = o.bodies ? o.bodies.open(row.html) : row.html;
      const text = o.bodies ? o.bodies.open(row.text) : row.text;
      if (html === null || text === null) throw new Error('the mail body cannot be opened with this --encryption-key');
      await o.transport!.send({ to: row.recipient, subject: row.subject, html, text });
    } catch (err) {
      const attempts = row.attempts + 1;
      const reason = String((err as Error)?.message ?? err).slice(0, 500);
      if (attempts >= o.maxAttempts) {
        await em.nativeUpdate(MailOutboxEntity, held, {
          status: 'failed',
          attempts,
          lastError: reason,
          leaseUntil: null,
        } as never);
        counts.failed++;
        o.onFailed?.();
        o.logger.error(
          { outboxId: row.id, event: row.event, attempts, err: reason },
          'mail delivery failed for good; it is listed by _email_outbox',
        );
        return;
      }
      const wait = Math.min(o.retryDelayMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);
      await em.nativeUpdate(MailOutboxEntity, held, {
        attempts,
        lastError: reason,
        nextAttemptAt: Date.now() + wait,
        leaseUntil: null,
      } as never);
      counts.retried++;
      o.onRetry?.();
      o.logger.warn(
        { outboxId: row.id, event: row.event, attempts, retryInMs: wait, err: reason },
        'mail delivery failed, will retry',
      );
      return;
    }
    await em.nativeUpdate(MailOutboxEntity, held, {
      status: 'sent',
      attempts: row.attempts + 1,
      sentAt: Date.now(),
      leaseUntil: null,
      lastError: null,
    } as never);
    counts.sent++;
  }

  /** One look: sends every due row this node can claim, oldest first. */
  async function sweep(): Promise<void> {
    for (;;) {
      const due = (await o.storage
        .em()
        .find(MailOutboxEntity, { status: 'pending', nextAttemptAt: { $lte: Date.now() }, ...free() } as never, {
          orderBy: { nextAttemptAt: 'asc', id: 'asc' } as never,
          limit: BATCH,
        })) as unknown as OutboxRow[];
      if (due.length === 0 || stopped) return;
      for (const raw of due) {
        if (stopped) return;
        const lease = await claim(raw.id);
        if (lease !== null) await deliver(toRow(raw), lease);
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
      .catch((err: unknown) => o.logger.error({ err }, 'mail outbox sweep failed'))
      .finally(() => {
        running = false;
        inFlight = undefined;
        schedule(again ? 0 : POLL_MS);
      });
  }

  return {
    async add(event, mail, unit) {
      const now = Date.now();
      const row: OutboxRow = {
        id: newId(),
        event,
        recipient: mail.to,
        subject: mail.subject,
        html: o.bodies ? o.bodies.seal(mail.html) : mail.html,
        text: o.bodies ? o.bodies.seal(mail.text) : mail.text,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        leaseUntil: null,
        lastError: null,
        createdAt: now,
        sentAt: null,
      };
      if (unit) {
        unit.em.create(MailOutboxEntity, row as never);
        unit.afterCommit(() => {
          if (!stopped) run();
        });
        return;
      }
      const em = o.storage.em();
      em.create(MailOutboxEntity, row as never);
      await em.flush();
      if (!stopped) run();
    },
    start() {
      if (!o.transport || !stopped) return;
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
      const [rows, total] = await o.storage.em().findAndCount(MailOutboxEntity, (status ? { status } : {}) as never, {
        orderBy: { createdAt: 'desc', id: 'desc' } as never,
        limit,
        offset: (page - 1) * limit,
      });
      return { rows: (rows as unknown as OutboxRow[]).map(toRow), total };
    },
    async retry(id) {
      const changed = await o.storage
        .em()
        .nativeUpdate(
          MailOutboxEntity,
          { id, status: 'failed' } as never,
          { status: 'pending', attempts: 0, nextAttemptAt: Date.now(), leaseUntil: null } as never,
        );
      if (changed === 1 && !stopped) run();
      return changed === 1;
    },
  };
}
