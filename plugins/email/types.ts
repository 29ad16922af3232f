/**
 * The `email` service (declared into core/services.ts), used by every flow that mails a user:
 * email verification, magic links, password reset, invitations, and email OTP codes.
 */
import type { RequestContext } from '../../core/context.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';

/** The template events (email template events). */
export const EMAIL_EVENTS = [
  'basic_auth_signup',
  'magic_link_login',
  'update_email',
  'forgot_password',
  'verify_otp',
  'invite_member',
] as const;
export type EmailEvent = (typeof EMAIL_EVENTS)[number];

export interface EmailMessage {
  event: EmailEvent;
  to: string;
  /**
   * Template values: `link` for links, `otp` for a `verify_otp` code, `name` for the user's
   * display name when known. Every value is escaped by the template engine.
   */
  data: Record<string, string>;
}

/** What the outbox holds, as admins see it (`_email_outbox`). */
export interface OutboxEntry {
  id: string;
  event: string;
  recipient: string;
  subject: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
}

export interface EmailService {
  /** Whether `--smtp-host` is set: mail can leave the process. */
  readonly configured: boolean;
  /**
   * Renders the admin's template for the event (or the default) and stores the message in the
   * durable outbox; resolves once it is stored. The outbox worker sends it. With `unit` the row
   * joins the unit of work of the change that causes the mail and is stored by its commit, so
   * the change and its mail are stored together or neither (core/unit-of-work.ts).
   */
  send(message: EmailMessage, unit?: UnitOfWork): Promise<void>;
  /**
   * Counts one mail-sending request against the per-address and per-client-IP limits; throws the
   * spec's `resource_exhausted` (429) once either is spent. `address` is any identifier the mail
   * goes to (normalized by the caller); unknown addresses count like known ones.
   */
  checkSendLimit(ctx: RequestContext, address: string): Promise<void>;
  /** Delivery counters since start (failures also go to the log and to `_email_outbox`). */
  stats(): { sent: number; retried: number; failed: number };
}

declare module '../../core/services.js' {
  interface Services {
    email: EmailService;
  }
}
