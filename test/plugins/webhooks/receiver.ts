/**
 * A real webhook receiver on 127.0.0.1 (node:http): records every request with its raw body, and
 * checks each one's `X-Service-Signature` against the client secret (hex HMAC-SHA256 of the raw
 * body) with its own HMAC. How it answers is up to the test: a status per request, a status
 * after a delay, or `hang` to never answer.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  signatureValid: boolean;
  /** The status answered, or 'hang'. */
  answered: number | 'hang';
  /** When the request arrived and when its answer was sent (ms since the epoch). */
  arrivedAt: number;
  answeredAt?: number;
}

/** A status at once, a status after `afterMs`, or no answer at all. */
export type Answer = number | { status: number; afterMs: number } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides the answer of each request (default 200). */
  answer: (request: Omit<Received, 'answered' | 'arrivedAt' | 'answeredAt'>, index: number) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(clientSecret: string): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], answer: () => 200, close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrivedAt = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const expected = createHmac('sha256', clientSecret).update(body).digest();
      const given = Buffer.from(String(req.headers['x-service-signature'] ?? ''), 'hex');
      const request = {
        path: req.url ?? '',
        headers: req.headers,
        body,
        json: safeJson(body),
        signatureValid: given.length === expected.length && timingSafeEqual(given, expected),
      };
      const answer = receiver.answer(request, receiver.received.length);
      const status = typeof answer === 'object' ? answer.status : answer;
      const entry: Received = { ...request, answered: status, arrivedAt };
      receiver.received.push(entry);
      if (status === 'hang') return;
      const send = () => {
        entry.answeredAt = Date.now();
        res.writeHead(status, { 'content-type': 'text/plain' }).end(`answered ${status}`);
      };
      if (typeof answer === 'object') setTimeout(send, answer.afterMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

function safeJson(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Polls `check` until it answers true, failing after `ms`. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  ms = 8000,
  what = 'the condition',
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Delivery timing that runs retries and give-ups in seconds. The attempt deadline still leaves a
 * loaded machine time to answer: an answer that comes after it counts as a timeout and is tried
 * again, which a test would then see as a second delivery.
 */
export const FAST_TIMING = {
  timeoutMs: 1000,
  maxAttempts: 4,
  baseDelayMs: 20,
  maxDelayMs: 80,
  pollMs: 25,
  batch: 10,
  responseExcerptChars: 200,
  leaseMarginMs: 3000,
};
