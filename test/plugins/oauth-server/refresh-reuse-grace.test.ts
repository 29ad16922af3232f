/**
 * The refresh-token reuse grace seen by a client of the running server: the answer of a rotation
 * at /oauth/token is lost and the client presents the same refresh token again. Within the grace
 * (1 s here, `--refresh-reuse-grace-seconds`) it gets a fresh rotation of the same sign-in, whose
 * access token /v1/session accepts, and the successor it never received is refused (and ends the
 * family if presented); after the grace the repeat is reuse and ends the family.
 */
import t from 'tap';
import { postJson } from '../../helpers/post-json.js';
import { startTestServer, TEST_CLIENT_ID, TEST_CLIENT_SECRET } from '../../helpers/server.js';

const PASSWORD = 'Grace-pass-1';
const server = await startTestServer({ flags: { 'refresh-reuse-grace-seconds': 1 } });
t.teardown(() => server.close());

const post = async (path: string, body: unknown, bearer?: string) => {
  const res = await postJson(server.url, path, body, bearer);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const refresh = async (token: string) => {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: TEST_CLIENT_ID,
      client_secret: TEST_CLIENT_SECRET,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const session = async (access: unknown) => (await post('/v1/session', {}, String(access))).status;

async function signIn(email: string): Promise<string> {
  t.equal((await post('/v1/signup', { email, password: PASSWORD, confirm_password: PASSWORD })).status, 200);
  const login = await post('/v1/login', { email, password: PASSWORD, scope: ['openid', 'offline_access'] });
  return String(login.body.refresh_token);
}

t.test('a repeat within the grace rotates anew; the unreceived successor is refused', async (t) => {
  const token = await signIn('grace-http@example.com');
  const lost = await refresh(token);
  t.equal(lost.status, 200, 'rotated (the answer the client never read)');
  const again = await refresh(token);
  t.equal(again.status, 200, 'the repeat rotates anew');
  t.not(again.body.refresh_token, lost.body.refresh_token, 'with a new refresh token');
  t.equal(await session(again.body.access_token), 200, '/v1/session accepts its access token');
  const successor = await refresh(String(lost.body.refresh_token));
  t.equal(successor.status, 400, 'the successor the client never received is refused');
  t.match(successor.body, { error: 'invalid_grant' });
  t.equal(await session(again.body.access_token), 401, 'presenting it ended the family');
});

t.test('after the grace a repeat is reuse and ends the family', async (t) => {
  const token = await signIn('late-http@example.com');
  const next = await refresh(token);
  t.equal(next.status, 200);
  await new Promise((r) => setTimeout(r, 1_200));
  const repeat = await refresh(token);
  t.equal(repeat.status, 400, 'the repeat is refused');
  t.match(repeat.body, { error: 'invalid_grant' });
  t.equal(await session(next.body.access_token), 401, 'the family is over');
  t.equal((await refresh(String(next.body.refresh_token))).status, 400, 'its refresh token too');
});
