/**
 * A PostgreSQL or MariaDB that stops answering (the proxy accepts and holds every byte, as a
 * dropped route or a hung server does): requests that need the database answer 503 in their
 * surface's shape within `--database-timeout-ms` (2 s by default; a request may meet it twice,
 * a pool wait and then a query), `/healthz` turns 503, the connections left without an answer are
 * closed rather than handed out again, and once the database answers the same server serves again.
 */
import t from 'tap';
import { databaseTarget, type DbName } from '../helpers/databases.js';
import { postJson } from '../helpers/post-json.js';
import { serverBehindProxy } from './server-behind-proxy.js';
import { TEST_CLIENT_ID, TEST_CLIENT_SECRET } from '../helpers/server.js';

const PASSWORD = 'Blackhole-pass-1';
/** Twice the default --database-timeout-ms, and room for a loaded machine. */
const ANSWER_BOUND_MS = 5_000;
/** The default --database-timeout-ms, and room for the timer and a loaded machine. */
const HELD_LIMIT_MS = 2_000 + 1_000;

const until = async (check: () => Promise<boolean>, limitMs: number): Promise<number | null> => {
  const start = Date.now();
  while (Date.now() - start < limitMs) {
    if (await check()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 200));
  }
  return null;
};

for (const name of ['postgres', 'mariadb'] as DbName[]) {
  const target = await databaseTarget(name);
  t.test(
    `${name} blackholed: bounded 503s, broken connections dropped, then recovery`,
    { skip: target ? false : `${name} is not reachable` },
    async (t) => {
      if (!target) return;
      const { proxy, server } = await serverBehindProxy(t, target);

      const timed = async (send: () => Promise<Response>) => {
        const start = Date.now();
        const res = await send();
        return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: Date.now() - start };
      };
      const request = (path: string, init: RequestInit) =>
        timed(() => fetch(`${server.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) }));
      const post = (path: string, body: unknown, bearer?: string) =>
        timed(() => postJson(server.url, path, body, bearer, 30_000));
      const login = () =>
        post('/v1/login', { email: 'held@example.com', password: PASSWORD, scope: ['openid', 'offline_access'] });
      const health = () =>
        fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(15_000) }).then((r) => r.status);

      t.equal(
        (await post('/v1/signup', { email: 'held@example.com', password: PASSWORD, confirm_password: PASSWORD }))
          .status,
        200,
        'signed up while the database answers',
      );
      const first = await login();
      const access = String(first.body.access_token);
      const refreshToken = String(first.body.refresh_token);
      const refresh = () =>
        request('/oauth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: refreshToken,
            client_id: TEST_CLIENT_ID,
            client_secret: TEST_CLIENT_SECRET,
          }),
        });

      await proxy.set('blackhole');
      const [signin, profile, rotated, graph] = await Promise.all([
        login(),
        request('/v1/profile', { headers: { authorization: `Bearer ${access}` } }),
        refresh(),
        post('/graphql', { query: '{ profile { id email } }' }, access),
      ]);
      for (const [what, a] of [
        ['a login', signin],
        ['a profile read', profile],
      ] as const) {
        t.equal(a.status, 503, `${what} answers 503`);
        t.match(a.body, { code: 'unavailable' }, `${what}: the REST envelope`);
        t.ok(a.ms <= ANSWER_BOUND_MS, `${what} answers within the bound (${a.ms} ms)`);
      }
      t.equal(rotated.status, 503, 'a refresh at /oauth/token answers 503');
      t.match(rotated.body, { error: 'temporarily_unavailable' }, 'in the OAuth error shape');
      t.ok(rotated.ms <= ANSWER_BOUND_MS, `a refresh answers within the bound (${rotated.ms} ms)`);
      t.match(
        graph.body,
        { errors: [{ extensions: { code: 'UNAVAILABLE' } }] },
        'GraphQL answers with an unavailable error',
      );
      t.ok(graph.ms <= ANSWER_BOUND_MS, `GraphQL answers within the bound (${graph.ms} ms)`);
      const unhealthy = await until(async () => (await health()) === 503, 10_000);
      t.not(unhealthy, null, '/healthz answers 503 within 10 s');
      // Connections keep being opened meanwhile (each waits its connect limit), but none that holds
      // an unanswered request outlives the limit: a kept one would hold it for as long as the outage.
      let oldest = 0;
      for (let i = 0; i < 15; i++) {
        oldest = Math.max(oldest, proxy.oldestHeldMs);
        await new Promise((r) => setTimeout(r, 200));
      }
      t.ok(oldest <= HELD_LIMIT_MS, `no connection kept waiting on an answer past the limit (oldest ${oldest} ms)`);
      const again = await login();
      t.equal(again.status, 503, 'a later login still answers 503 while the database is away');
      t.ok(again.ms <= ANSWER_BOUND_MS, `within the bound (${again.ms} ms)`);

      await proxy.set('up');
      const back = await until(async () => (await health()) === 200 && (await login()).status === 200, 20_000);
      t.not(back, null, 'healthy and logging in again without a restart');
      t.equal((await refresh()).status, 200, 'the refresh token refused meanwhile still rotates');
    },
  );
}
