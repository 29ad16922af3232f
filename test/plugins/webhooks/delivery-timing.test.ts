/**
 * The delivery timing a build passes to `createWebhooksPlugin` is checked when the plugin is
 * created: the defaults fill what is left out, and a value out of its range fails at once with
 * its name, rather than as a worker that never claims or retries without pause.
 */
import t from 'tap';
import { resolveDeliveryTiming } from '../../../plugins/webhooks/delivery-timing.js';
import { createWebhooksPlugin, DEFAULT_DELIVERY_TIMING } from '../../../plugins/webhooks/index.js';

t.test('what a build leaves out comes from the defaults', async (t) => {
  t.same(resolveDeliveryTiming(), DEFAULT_DELIVERY_TIMING, 'nothing given: the defaults');
  t.same(
    resolveDeliveryTiming({ concurrency: 50, gatherMs: 0, perWebhookConcurrency: undefined }),
    { ...DEFAULT_DELIVERY_TIMING, concurrency: 50, gatherMs: 0 },
    'given values replace theirs; an undefined one keeps the default',
  );
});

t.test('a value out of its range fails the plugin at its creation, naming the value', async (t) => {
  const cases: [string, Record<string, number>, RegExp][] = [
    ['a fractional count', { concurrency: 2.5 }, /concurrency must be a whole number of at least 1 \(got 2\.5\)/],
    ['a zero count', { perWebhookConcurrency: 0 }, /perWebhookConcurrency must be a whole number/],
    ['a NaN count', { batch: Number.NaN }, /batch must be a whole number of at least 1 \(got NaN\)/],
    ['no attempts', { maxAttempts: 0 }, /maxAttempts must be a whole number/],
    ['an endless deadline', { timeoutMs: Number.POSITIVE_INFINITY }, /timeoutMs must be a finite number above 0/],
    ['a zero poll', { pollMs: 0 }, /pollMs must be a finite number above 0/],
    ['a negative gathering window', { gatherMs: -1 }, /gatherMs must be a finite number of at least 0/],
    ['a NaN lease margin', { leaseMarginMs: Number.NaN }, /leaseMarginMs must be a finite number of at least 0/],
    [
      'a ceiling under the base delay',
      { baseDelayMs: 500, maxDelayMs: 100 },
      /maxDelayMs must be at least baseDelayMs \(500\)/,
    ],
  ];
  for (const [what, timing, message] of cases) {
    t.throws(() => createWebhooksPlugin({ timing }), message, what);
  }
});
