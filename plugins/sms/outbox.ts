/**
 * The SMS outbox: every text is an `sms_outbox` row in the main database before the gateway sees
 * it, stored by the commit of the change that causes it when there is one, and a worker in each
 * node posts the rows that are due (storage/outbox-queue.ts: leases, retries with backoff, each
 * attempt counted on the row before its request leaves). A request that texts a code is answered
 * once the row is stored: a slow or unreachable gateway delays the text, never the answer. After
 * `--sms-max-attempts` a text is marked `failed`, logged and counted. Bodies hold one-time codes,
 * so they are sealed at rest.
 */
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { createOutboxQueue, type OutboxQueue, type QueueSettings } from '../../storage/outbox-queue.js';
import type { OutboundService } from '../outbound/index.js';
import { SmsOutboxEntity, type SmsOutboxRow } from './entities.js';
import type { GatewaySettings } from './flags.js';
import { postMessage, SEND_TIMEOUT_MS, type SendFailure } from './gateway.js';

/** A claim's lifetime: longer than one gateway attempt may take. */
export const LEASE_MS = 3 * SEND_TIMEOUT_MS;

export interface SmsOutboxOptions extends QueueSettings {
  /** The gateway; null when the flags are not set (nothing is queued then: sending is refused). */
  settings: GatewaySettings | null;
  outbound: OutboundService;
  /** Seals bodies at rest with the keys service; `open` is null for a body another key sealed. */
  bodies: { seal(text: string): string; open(sealed: string): string | null };
  /** Told of every attempt the gateway did not take (a metric). */
  onFailure?: (reason: SendFailure) => void;
}

/** The queue, with texts as what is added (storage/outbox-queue.ts: `unit` as there). */
export interface SmsOutbox extends Omit<OutboxQueue<SmsOutboxRow>, 'add'> {
  add(to: string, body: string, unit?: UnitOfWork): Promise<void>;
}

export function createSmsOutbox(o: SmsOutboxOptions): SmsOutbox {
  const { settings, bodies } = o;
  const queue = createOutboxQueue<SmsOutboxRow>({
    ...o,
    entity: SmsOutboxEntity,
    label: 'SMS',
    listedBy: 'the latchkey_sms_outbox table',
    leaseMs: LEASE_MS,
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
    add: (to, body, unit) => queue.add({ recipient: to, body: bodies.seal(body) }, unit),
  };
}
