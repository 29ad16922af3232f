/**
 * The main database failing under a running server (PostgreSQL and MariaDB, through a TCP proxy
 * that refuses connections): `/healthz` turns 503, requests that need the database answer 503
 * `unavailable` (a client may retry), not 500, a refresh token refused meanwhile is not spent,
 * and once the database answers again the same server serves again without a restart.
 */
import t from 'tap';
import { databaseTarget, type DbName } from '../helpers/databases.js';
import { postJson } from '../helpers/post-json.js';
import { serverBehindProxy } from './server-behind-proxy.js';
import { TEST_CLIENT_ID, TEST_CLIENT_SECRET } from '../helpers/server.js';

const PASSWORD = 'Outage-pass-1';

for (const name of ['postgres', 'mariadb'] as DbName[]) {
  const target = await databaseTarget(name);
  t.test(
    `${name} refused: 503 health and answers, then recovery`,
    { skip: target ? false : `${name} is not reachable` },
    async (t) => {
      if (!target) return;
      const { proxy, server } = await serverBehindProxy(t, target);

      const post = (path: string, body: unknown, bearer?: string) => postJson(server.url, path, body, bearer);
      const health = () =>
        fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(15_000) }).then((r) => r.status);
      const signup = (email: string) => post('/v1/signup', { email, password: PASSWORD, confirm_password: PASSWORD });

      t.equal((await signup('before@example.com')).status, 200, 'signed up while the database answers');
      const held = (await (
        await post('/v1/login', {
          email: 'before@example.com',
          password: PASSWORD,
          scope: ['openid', 'offline_access'],
        })
      ).json()) as { refresh_token: string };
      const refresh = () =>
        fetch(`${server.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: held.refresh_token,
            client_id: TEST_CLIENT_ID,
            client_secret: TEST_CLIENT_SECRET,
          }),
          signal: AbortSignal.timeout(20_000),
        });
      await proxy.set('refuse');
      t.equal(await health(), 503, '/healthz answers 503');
      const refused = await signup('during@example.com');
      t.equal(refused.status, 503, 'a signup answers 503');
      t.match(await refused.json(), { code: 'unavailable' }, 'in the REST envelope, without detail');
      const login = await post('/v1/login', { email: 'before@example.com', password: PASSWORD });
      t.equal(login.status, 503, 'a login answers 503');
      t.equal((await refresh()).status, 503, 'a refresh answers 503');

      await proxy.set('up');
      let back = false;
      for (let i = 0; i < 60 && !back; i++) {
        back = (await health()) === 200 && (await signup(`after-${i}@example.com`)).status === 200;
        if (!back) await new Promise((r) => setTimeout(r, 250));
      }
      t.ok(back, 'healthy and signing up again without a restart');
      t.equal((await refresh()).status, 200, 'the refresh token refused during the outage still rotates');
    },
  );
}
