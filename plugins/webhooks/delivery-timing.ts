/**
 * The delivery timing a build gives `createWebhooksPlugin`, checked when the plugin is created: a
 * count that is not a whole number of at least one, or a duration that is not a finite number of
 * milliseconds, would otherwise show only later as a worker that never claims (NaN slots), retries
 * at once forever (a NaN backoff) or leases rows for no time. The build fails at its start with the
 * name of the wrong value instead.
 */
import type { DeliveryTiming } from './worker.js';

export const DEFAULT_DELIVERY_TIMING: DeliveryTiming = {
  timeoutMs: 10_000,
  maxAttempts: 6,
  baseDelayMs: 2_000,
  maxDelayMs: 10 * 60_000,
  pollMs: 1_000,
  batch: 20,
  concurrency: 20,
  gatherMs: 50,
  perWebhookConcurrency: 4,
  responseExcerptChars: 1_000,
  leaseMarginMs: 30_000,
};

/** Whole numbers of at least one. */
const COUNTS = ['maxAttempts', 'batch', 'concurrency', 'perWebhookConcurrency'] as const;
/** Finite milliseconds above zero. */
const POSITIVE_DURATIONS = ['timeoutMs', 'baseDelayMs', 'maxDelayMs', 'pollMs'] as const;
/** Finite, zero allowed (no gathering, no margin, no excerpt). */
const NON_NEGATIVE = ['gatherMs', 'leaseMarginMs', 'responseExcerptChars'] as const;

/** The defaults with `given` over them; throws naming the first value out of its range. */
export function resolveDeliveryTiming(given: Partial<DeliveryTiming> = {}): DeliveryTiming {
  const timing: DeliveryTiming = { ...DEFAULT_DELIVERY_TIMING };
  for (const [key, value] of Object.entries(given) as [keyof DeliveryTiming, number | undefined][]) {
    if (value !== undefined) timing[key] = value;
  }
  const wrong = (key: keyof DeliveryTiming, rule: string) =>
    new Error(`webhooks: the delivery timing's ${key} must be ${rule} (got ${String(timing[key])})`);
  for (const key of COUNTS) {
    if (!Number.isSafeInteger(timing[key]) || timing[key] < 1) throw wrong(key, 'a whole number of at least 1');
  }
  for (const key of POSITIVE_DURATIONS) {
    if (!Number.isFinite(timing[key]) || timing[key] <= 0) throw wrong(key, 'a finite number above 0');
  }
  for (const key of NON_NEGATIVE) {
    if (!Number.isFinite(timing[key]) || timing[key] < 0) throw wrong(key, 'a finite number of at least 0');
  }
  if (timing.maxDelayMs < timing.baseDelayMs) throw wrong('maxDelayMs', `at least baseDelayMs (${timing.baseDelayMs})`);
  return timing;
}
