/** The `sms` service: text messages through a Twilio-compatible gateway, by a durable outbox. */
import type { RequestContext } from '../../core/context.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';

export interface SmsSendOptions {
  /** The unit of work of the change that causes the text (stored by its commit). */
  unit?: UnitOfWork;
  /** When the one-time code in the body stops working, Unix milliseconds. */
  expiresAt?: number;
}

export interface SmsService {
  /** True when the gateway flags are set; without them nothing can be sent. */
  readonly configured: boolean;
  /**
   * Queues `body` for the E.164 number `to` in the durable outbox and resolves once the row is
   * stored; the outbox worker posts it to the gateway, retrying with backoff while the gateway
   * is slow, down or refusing, so the caller's request never waits for it. With `unit` the row
   * joins the unit of work of the change that causes the text and is stored by its commit
   * (core/unit-of-work.ts). `expiresAt` (Unix ms) is when the code the text carries stops
   * working: an admin's `_retry_sms` refuses the text after it. Rejects with a ServiceError only
   * when SMS is not configured or the number is not E.164.
   */
  send(to: string, body: string, options?: SmsSendOptions): Promise<void>;
  /** Delivery counters since start (failures also go to the log and to the outbox rows). */
  stats(): { sent: number; retried: number; failed: number };
  /**
   * Counts one text to `to` from this request's client IP against the abuse limits (per number and
   * per IP, shared by every node through the memory store); over either limit it throws the spec's
   * 429 `resource_exhausted`.
   */
  checkSendLimit(ctx: RequestContext, to: string): Promise<void>;
  /** True for an E.164 number (`+` and 8 to 15 digits), the only form a text can be sent to. */
  textable(phone: string): boolean;
  /** The texted one-time codes of the phone flows (codes.ts). */
  readonly codes: SmsCodes;
}

/**
 * One-time codes per purpose (`phone-verification`, `password-reset`) and subject (a user id or a
 * phone number): stored as a sealed digest, single use, attempt-limited.
 */
export interface SmsCodes {
  /** A fresh code living `ttlMs`, with `data` kept sealed beside it; the previous code stops working. */
  issue(purpose: string, subject: string, ttlMs: number, data?: string): Promise<string>;
  /** The data of the live code, or null when none is live. */
  pending(purpose: string, subject: string): Promise<{ data: string } | null>;
  /** Refuses with `resource_exhausted` while five wrong codes lock the subject (15 minutes). */
  checkNotLocked(purpose: string, subject: string): Promise<void>;
  /**
   * Spends the live code when `code` is it and answers its data; otherwise null, and the wrong
   * code counts: the fifth within 15 minutes drops the live code and throws `resource_exhausted`.
   */
  redeem(purpose: string, subject: string, code: string): Promise<{ data: string } | null>;
  /** Drops the live code. */
  drop(purpose: string, subject: string): Promise<void>;
}
