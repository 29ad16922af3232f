/**
 * Which attempts are retried and after how long: network errors, timeouts and 5xx/429 answers
 * are retried, everything else is final; the wait doubles per attempt up to its cap, and its
 * jitter keeps it between half and all of that.
 */
import t from 'tap';
import { backoffMs, isRetryable } from '../../../plugins/webhooks/retry-policy.js';

t.test('what is retried', async (t) => {
  for (const status of [500, 502, 503, 504, 429]) t.ok(isRetryable(status, undefined), `${status}`);
  for (const status of [200, 301, 302, 400, 401, 404, 410, 422]) t.notOk(isRetryable(status, undefined), `${status}`);
  for (const code of ['network', 'timeout', 'dns_failure'] as const) t.ok(isRetryable(0, code), code);
  for (const code of ['address_refused', 'invalid_request', 'too_large'] as const) t.notOk(isRetryable(0, code), code);
});

t.test('exponential backoff with jitter, capped', async (t) => {
  const policy = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1000 };
  t.same(
    [1, 2, 3, 4, 5, 6].map((n) => backoffMs(policy, n, () => 1)),
    [100, 200, 400, 800, 1000, 1000],
    'the full wait doubles up to the cap',
  );
  t.same(
    [1, 2, 3, 4, 5].map((n) => backoffMs(policy, n, () => 0)),
    [50, 100, 200, 400, 500],
    'never less than half of it',
  );
  const spread = new Set(Array.from({ length: 50 }, () => backoffMs(policy, 3)));
  t.ok(spread.size > 10, 'waits differ from one failure to the next');
  t.ok([...spread].every((w) => w >= 200 && w <= 400));
});
