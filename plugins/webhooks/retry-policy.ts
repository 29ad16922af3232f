/**
 * When a failed attempt is tried again (beyond the reference, which never retries): network
 * errors, timeouts and 5xx/429 answers are retried after an exponential backoff with jitter (half
 * the delay fixed, half random, so nodes that failed together do not retry together), up to a
 * bounded number of attempts; anything else (a 3xx, which is never followed; a 4xx; an address
 * the guarded client refuses) is final at once.
 */
import type { OutboundErrorCode } from '../outbound/index.js';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

const RETRIED_ERRORS: ReadonlySet<OutboundErrorCode> = new Set(['network', 'timeout', 'dns_failure']);

/** Whether an attempt's outcome is worth another attempt (status 0: no answer, `error` says why). */
export function isRetryable(status: number, error: OutboundErrorCode | undefined): boolean {
  if (status === 0) return error !== undefined && RETRIED_ERRORS.has(error);
  return status >= 500 || status === 429;
}

/** The wait before attempt `attempt + 1`, after `attempt` failed attempts (1-based). */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}
