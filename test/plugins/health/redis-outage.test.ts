/**
 * The shared memory store (Redis) failing under a running server, through a TCP proxy that
 * refuses connections or stalls them: `/healthz` turns 503 within 10 s, a request that needs the
 * store answers 503 `unavailable` within a few seconds (never a 500, never a hang), and once Redis
 * answers again the same server serves again, without a restart.
 */
import t from 'tap';
import { freshRedisUrl, redisAvailable } from '../../helpers/databases.js';
import { FaultProxy, type FaultMode } from '../../helpers/fault-proxy.js';
import { startTestServer } from '../../helpers/server.js';

const skip = (await redisAvailable()) ? false : 'Redis is not reachable';

const PASSWORD = 'Outage-pass-1';

t.test('a refused or stalled Redis is a 503, and the server recovers without a restart', { skip }, async (t) => {
  const direct = new URL(freshRedisUrl());
  const proxy = await FaultProxy.start(direct.hostname, Number(direct.port || 6379));
  t.teardown(() => proxy.close());
  const url = new URL(direct);
  url.host = proxy.address;
  const server = await startTestServer({ flags: { 'redis-url': url.toString() } });
  t.teardown(() => server.close());

  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
  const health = () => fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(15_000) }).then((r) => r.status);
  const login = () => post('/v1/login', { email: 'outage@example.com', password: PASSWORD });
  /** Milliseconds until `check` holds, polling every 200 ms, or null after `ms`. */
  const until = async (ms: number, check: () => Promise<boolean>) => {
    const start = Date.now();
    while (Date.now() - start < ms) {
      if (await check()) return Date.now() - start;
      await new Promise((r) => setTimeout(r, 200));
    }
    return null;
  };

  const made = await post('/v1/signup', {
    email: 'outage@example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  t.equal(made.status, 200, 'signed up while Redis answers');
  t.equal(await health(), 200);

  for (const mode of ['refuse', 'blackhole'] as FaultMode[]) {
    await proxy.set(mode);
    const unhealthy = await until(10_000, async () => (await health()) === 503);
    t.ok(unhealthy !== null, `${mode}: /healthz answers 503 within 10 s (${unhealthy} ms)`);
    const started = Date.now();
    const refused = await login();
    const took = Date.now() - started;
    t.equal(refused.status, 503, `${mode}: a login answers 503`);
    t.match(await refused.json(), { code: 'unavailable' }, `${mode}: in the REST envelope`);
    t.ok(took < 5_000, `${mode}: without waiting long (${took} ms)`);

    await proxy.set('up');
    const back = await until(15_000, async () => (await health()) === 200 && (await login()).status === 200);
    t.ok(back !== null, `${mode} over: healthy and logging in again within 15 s (${back} ms)`);
  }
});
