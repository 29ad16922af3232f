/**
 * POST /oauth/token: `expires_in` is the timestamp of expiry, so for client_credentials
 * too it is the access token's own `exp`, even when the clock moves on while the token is made.
 */
import t from 'tap';
import { oauthFixture } from './setup.js';

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

t.test('client_credentials: expires_in is the token exp while the clock ticks', async (t) => {
  const fx = await oauthFixture();
  t.teardown(() => fx.server.close());
  const realNow = Date.now;
  let ticks = 0;
  // Every reading of the clock, in this process where the server runs, is a second after the last.
  Date.now = () => realNow() + 1000 * ticks++;
  let body: Record<string, unknown>;
  try {
    const res = await fetch(`${fx.server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: fx.client.client_id,
        client_secret: fx.client.client_secret,
      }),
    });
    body = (await res.json()) as Record<string, unknown>;
    t.equal(res.status, 200, JSON.stringify(body));
  } finally {
    Date.now = realNow;
  }
  t.equal(body.expires_in, claimsOf(String(body.access_token)).exp);
});
