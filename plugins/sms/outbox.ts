/**
 * The SMS outbox: every text is an `sms_outbox` row in the main database before the gateway sees
 * it, stored by the commit of the change that causes it when there is one, and a worker in each
 * node posts the rows that are due (storage/outbox-queue.ts: leases, retries with backoff, each
 * attempt counted on the row before its request leaves). A request that texts a code is answered
 * once the row is stored: a slow or unreachable gateway delays the text, never the answer. After
 * `--sms-max-attempts` a text is marked `failed`, logged and counted; admins list the rows with
 * `_sms_outbox` and queue a failed one again with `_retry_sms`. Bodies hold one-time codes, so
 * they are sealed at rest. A row also keeps when its code stops working (`expires_at`, stated by
 * the sender): the code store keeps codes by purpose and subject in the memory store and knows
 * nothing of texts, so the row is the only place where a text's usefulness is known. A code that
 * no longer works is no use texted: the worker does not send a text past its `expires_at`, nor
 * schedule a retry after it (the text is marked `failed` with `CODE_EXPIRED` instead, counted as
 * any text given up), and a failed text whose code has expired is not queued again.
 */
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { createOutboxQueue, type OutboxQueue, type QueueSettings } from '../../storage/outbox-queue.js';
import type { OutboundService } from '../outbound/index.js';
import { SmsOutboxEntity, type SmsOutboxRow } from './entities.js';
import type { GatewaySettings } from './flags.js';
import { postMessage, SEND_TIMEOUT_MS, type SendFailure } from './gateway.js';

/** A claim's lifetime: longer than one gateway attempt may take. */
export const LEASE_MS = 3 * SEND_TIMEOUT_MS;

/** Why a text was given up without reaching the gateway in time: its code stops working first. */
export const CODE_EXPIRED = 'the code expired before the text could be sent';

export interface SmsOutboxOptions extends QueueSettings {
  /** The gateway; null when the flags are not set (nothing is queued then: sending is refused). */
  settings: GatewaySettings | null;
  outbound: OutboundService;
  /** Seals bodies at rest with the keys service; `open` is null for a body another key sealed. */
  bodies: { seal(text: string): string; open(sealed: string): string | null };
  /** Told of every attempt the gateway did not take (a metric). */
  onFailure?: (reason: SendFailure) => void;
}

/** What an admin's retry did: queued the text, found no failed text with the id, or found its code expired. */
export type SmsRetry =
  { queued: true } | { queued: false; reason: 'not_failed' } | { queued: false; reason: 'expired'; expiresAt: number };

/** The queue, with texts as what is added (storage/outbox-queue.ts: `unit` as there). */
export interface SmsOutbox extends Omit<OutboxQueue<SmsOutboxRow>, 'add' | 'retry'> {
  add(to: string, body: string, options?: { unit?: UnitOfWork; expiresAt?: number }): Promise<void>;
  /**
   * Puts a failed text back in the queue, unless the code it carries has expired (checked when
   * the retry is asked for; a text with no stated end of use is always queued again).
   */
  retry(id: string): Promise<SmsRetry>;
}

/** A stored time as a number (some drivers answer bigint columns as strings); null when absent. */
export const expiryOf = (row: Pick<SmsOutboxRow, 'expiresAt'>): number | null =>
  row.expiresAt === null || row.expiresAt === undefined ? null : Number(row.expiresAt);

export function createSmsOutbox(o: SmsOutboxOptions): SmsOutbox {
  const { settings, bodies } = o;
  const queue = createOutboxQueue<SmsOutboxRow>({
    ...o,
    entity: SmsOutboxEntity,
    label: 'SMS',
    listedBy: '_sms_outbox',
    leaseMs: LEASE_MS,
    expiry: { of: expiryOf, error: CODE_EXPIRED },
    send: settings
      ? async (row) => {
          const body = bodies.open(row.body);
          if (body === null) throw new Error('the text cannot be opened with this --encryption-key');
          await postMessage(o.outbound, settings, o.logger, row.recipient, body, o.onFailure);
        }
      : undefined,
  });
  return {
    ...queue,
    add: (to, body, options = {}) =>
      queue.add({ recipient: to, body: bodies.seal(body), expiresAt: options.expiresAt ?? null }, options.unit),
    async retry(id) {
      const row = (await o.storage
        .em()
        .findOne(SmsOutboxEntity, { id, status: 'failed' } as never)) as SmsOutboxRow | null;
      if (row === null) return { queued: false, reason: 'not_failed' };
      const expiresAt = expiryOf(row);
      if (expiresAt !== null && expiresAt <= Date.now()) return { queued: false, reason: 'expired', expiresAt };
      // The queue's conditional update (failed to pending) decides: of two retries one queues it.
      return (await queue.retry(id)) ? { queued: true } : { queued: false, reason: 'not_failed' };
    },
  };
}
