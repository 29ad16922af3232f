/**
 * The mail outbox: every mail is a `mail_outbox` row in the main database before anything is
 * sent, and a worker in each node sends the rows that are due, with leases, retries with backoff
 * and attempts logged before they leave (storage/outbox-queue.ts). After `--email-max-attempts`
 * a mail is marked `failed`, logged and counted; admins list the rows with `_email_outbox` and
 * queue a failed one again with `_retry_email`. Bodies hold one-time codes and sign-in links, so
 * they are sealed at rest.
 */
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { createOutboxQueue, type OutboxQueue, type QueueSettings } from '../../storage/outbox-queue.js';
import { MailOutboxEntity, type OutboxRow } from './entities.js';
import { SMTP_TIMEOUT_MS, type MailTransport, type OutgoingMail } from './transport.js';

/** A claim's lifetime: longer than one SMTP attempt may take. */
export const LEASE_MS = 3 * SMTP_TIMEOUT_MS;

export interface OutboxOptions extends QueueSettings {
  transport: MailTransport | undefined;
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

/** The queue, with mail as what is added (storage/outbox-queue.ts: `unit` as there). */
export interface Outbox extends Omit<OutboxQueue<OutboxRow>, 'add'> {
  add(event: string, mail: OutgoingMail, unit?: UnitOfWork): Promise<void>;
}

export function createOutbox(o: OutboxOptions): Outbox {
  const { transport, bodies } = o;
  const queue = createOutboxQueue<OutboxRow>({
    ...o,
    entity: MailOutboxEntity,
    label: 'mail',
    listedBy: '_email_outbox',
    leaseMs: LEASE_MS,
    send: transport
      ? async (row) => {
          const html = bodies ? bodies.open(row.html) : row.html;
          const text = bodies ? bodies.open(row.text) : row.text;
          if (html === null || text === null)
            throw new Error('the mail body cannot be opened with this --encryption-key');
          await transport.send({ to: row.recipient, subject: row.subject, html, text });
        }
      : undefined,
  });
  return {
    ...queue,
    add: (event, mail, unit) =>
      queue.add(
        {
          event,
          recipient: mail.to,
          subject: mail.subject,
          html: bodies ? bodies.seal(mail.html) : mail.html,
          text: bodies ? bodies.seal(mail.text) : mail.text,
        },
        unit,
      ),
  };
}
