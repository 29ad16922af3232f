/**
 * The per-IP limits through @fastify/rate-limit: the standard `RateLimit-*`
 * headers on every answer and `Retry-After` on a refusal, the spec's 429 envelope, a route's own
 * bucket separate from the global limiter (RawRoute.rateLimit), and with --redis-url one budget
 * across servers.
 */
import t from 'tap';
import { definePlugin } from '../../../core/plugin.js';
import { basePlugins } from '../../../plugins/default.js';
import { freshRedisUrl, redisAvailable } from '../../helpers/databases.js';
import { startTestServer } from '../../helpers/server.js';

/** A plugin with one route of its own bucket (2 per minute), as org discovery and registration declare. */
const bucketPlugin = definePlugin({
  name: 'bucket-probe',
  description: 'A route with its own rate-limit bucket.',
  routes: [
    {
      method: 'GET',
      path: '/probe/own-bucket',
      rateLimit: { max: 2, timeWindow: 60_000 },
      handler: async () => ({ status: 200, body: { ok: true } }),
    },
  ],
});

t.test('RateLimit-* headers, the 429 envelope, and a route of its own bucket', async (t) => {
  const s = await startTestServer({ plugins: [...basePlugins, bucketPlugin], flags: { 'rate-limit-per-minute': 4 } });
  t.teardown(() => s.close());
  const first = await fetch(`${s.url}/v1/meta`);
  t.equal(first.status, 200);
  t.equal(first.headers.get('ratelimit-limit'), '4');
  t.equal(first.headers.get('ratelimit-remaining'), '3');
  const reset = Number(first.headers.get('ratelimit-reset'));
  t.ok(reset >= 1 && reset <= 60, `ratelimit-reset ${reset} s within the minute`);

  // The route's own bucket: two a minute, and its requests do not spend the global budget.
  t.equal((await fetch(`${s.url}/probe/own-bucket`)).status, 200);
  const second = await fetch(`${s.url}/probe/own-bucket`);
  t.equal(second.status, 200);
  t.equal(second.headers.get('ratelimit-limit'), '2', 'the route announces its own limit');
  const third = await fetch(`${s.url}/probe/own-bucket`);
  t.equal(third.status, 429, 'the third in the minute is refused');
  t.same(await third.json(), { code: 'resource_exhausted', message: 'too many requests' });
  t.ok(Number(third.headers.get('retry-after')) >= 1, 'with Retry-After');
  t.equal(third.headers.get('ratelimit-remaining'), '0');
  t.equal(third.headers.get('x-frame-options'), 'DENY', 'a refusal carries the security headers');

  for (let i = 0; i < 3; i++) t.equal((await fetch(`${s.url}/v1/meta`)).status, 200, `global request ${i + 2}`);
  const over = await fetch(`${s.url}/v1/meta`);
  t.equal(over.status, 429, 'the global budget was four, untouched by the route of its own bucket');
  t.ok(Number(over.headers.get('retry-after')) >= 1);
});

const redisUp = await redisAvailable();

t.test(
  'with --redis-url two servers spend one budget',
  { skip: redisUp ? false : 'Redis is not reachable' },
  async (t) => {
    const flags = { 'rate-limit-per-minute': 3, 'redis-url': freshRedisUrl() };
    const a = await startTestServer({ plugins: basePlugins, flags });
    const b = await startTestServer({ plugins: basePlugins, flags });
    t.teardown(async () => {
      await a.close();
      await b.close();
    });
    const statuses = [];
    for (const s of [a, b, a, b]) statuses.push((await fetch(`${s.url}/v1/meta`)).status);
    t.same(statuses, [200, 200, 200, 429], 'the fourth request, on either server, is over the budget of three');
    const remaining = await fetch(`${a.url}/v1/meta`);
    t.equal(remaining.status, 429);
    t.equal(remaining.headers.get('ratelimit-limit'), '3');
  },
);
