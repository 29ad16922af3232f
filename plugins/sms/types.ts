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
}
