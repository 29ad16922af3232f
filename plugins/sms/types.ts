/** The `sms` service: text messages through a Twilio-compatible gateway. */
import type { RequestContext } from '../../core/context.js';

export interface SmsService {
  /** True when the gateway flags are set; without them nothing can be sent. */
  readonly configured: boolean;
  /** Sends `body` to the E.164 number `to`; rejects with a ServiceError when the gateway refuses or is unreachable. */
  send(to: string, body: string): Promise<void>;
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
