/**
 * One text through a Twilio-compatible Messages API: `POST {base}/2010-04-01/Accounts/{sid}/Messages.json`
 * with a form body `To`, `From`, `Body` and HTTP Basic credentials (Twilio's REST API; API key and
 * secret as user and password). The request goes through the guarded outbound client, so the
 * gateway's address is checked and pinned like any other outbound call. The outbox worker
 * (outbox.ts) makes each attempt; a failed one is retried from there.
 */
import type { Logger } from '../../core/logger.js';
import type { OutboundService } from '../outbound/index.js';
import type { GatewaySettings } from './flags.js';

export const SEND_TIMEOUT_MS = 10_000;

export function messagesUrl(settings: GatewaySettings): string {
  const base = settings.base.href.replace(/\/+$/, '');
  return `${base}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
}

/** Why an attempt did not go out: the gateway could not be reached, or it answered with an error status. */
export type SendFailure = 'unreachable' | 'refused';

export async function postMessage(
  outbound: OutboundService,
  settings: GatewaySettings,
  logger: Logger,
  to: string,
  body: string,
  onFailure: (reason: SendFailure) => void = () => {},
): Promise<void> {
  const form = new URLSearchParams({ To: to, From: settings.sender, Body: body });
  const basic = Buffer.from(`${settings.apiKey}:${settings.apiSecret}`).toString('base64');
  let status: number;
  try {
    const res = await outbound.fetch(messagesUrl(settings), {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
      timeoutMs: SEND_TIMEOUT_MS,
      maxBytes: 64 * 1024,
    });
    status = res.status;
  } catch (err) {
    // The reason (refused address, timeout, reset) is logged; the number and the text are not.
    const reason = (err as Error).message;
    logger.warn({ err: reason }, 'SMS gateway unreachable');
    onFailure('unreachable');
    throw new Error(`the SMS gateway could not be reached: ${reason}`);
  }
  if (status < 200 || status >= 300) {
    logger.warn({ status }, 'SMS gateway refused the message');
    onFailure('refused');
    throw new Error(`the SMS gateway answered ${status}`);
  }
}
