/**
 * Email verification at signup and its admin side, on a started server: signup with
 * `--enable-email-verification` writes a `basic_auth_signup` verification request (token stored
 * only as its digest) and hands the plain token to the `email.verification_requested` hook; the
 * admin list shows it over REST and GraphQL; `delete_user` removes it with the user.
 */
import t from 'tap';
import { createHash } from 'node:crypto';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

// Mail needs an SMTP host (plugins/email); nothing listens on port 9 here, so it stays queued.
const server = await startTestServer({
  flags: { 'enable-email-verification': true, 'smtp-host': '127.0.0.1', 'smtp-port': 9 },
});
t.teardown(() => server.close());
const PASSWORD = 'Verify-pass-1';
const json = { 'content-type': 'application/json', origin: server.url };
const admin = { 'x-service-admin-secret': TEST_ADMIN_SECRET };

const mailed: { email: string; token: string; identifier: string; expiresAt: number }[] = [];
server.kernel.hooks.on('email.verification_requested', (p) => {
  mailed.push(p);
});

async function rest(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function gql(query: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as {
    data?: Record<string, Record<string, unknown> | null>;
    errors?: { message: string }[];
  };
}

/** A user whose first address the admin vouched for, signed in: its id and bearer header (throws when a step fails). */
async function vouchedAndSignedIn(email: string): Promise<{ id: string; bearer: Record<string, string> }> {
  const signup = await rest('signup', { email, password: PASSWORD, confirm_password: PASSWORD });
  const id = (signup.body.user as { id: string }).id;
  const vouched = await rest('admin/update_user', { id, email_verified: true }, admin);
  if (vouched.status !== 200) throw new Error(`the admin could not vouch for ${email}: ${vouched.status}`);
  const login = await rest('login', { email, password: PASSWORD });
  if (login.status !== 200) throw new Error(`${email} could not sign in: ${login.status}`);
  return { id, bearer: { authorization: `Bearer ${login.body.access_token as string}` } };
}

interface Listed {
  id: string;
  identifier: string;
  token: string;
  email: string;
  expires: number;
  created_at: number;
  nonce: string;
  redirect_uri?: string;
}

t.test('signup with verification on: a stored request, no session, and login waits for the proof', async (t) => {
  const signup = await rest('signup', {
    email: 'Verify@Example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
    redirect_uri: `${server.url}/app`,
  });
  t.equal(signup.status, 200);
  t.equal(signup.body.message, 'Verification email has been sent. Please check your inbox');
  t.equal(signup.body.access_token, undefined, 'no tokens before the address is verified');
  t.equal((signup.body.user as { email: string }).email, 'verify@example.com');

  t.equal(mailed.length, 1, 'the mail hook got one request');
  t.equal(mailed[0].identifier, 'basic_auth_signup');
  t.equal(mailed[0].email, 'verify@example.com');

  const list = await rest('admin/verification_requests', {}, admin);
  t.equal(list.status, 200);
  const requests = list.body.verification_requests as Listed[];
  t.equal((list.body.pagination as { total: number }).total, 1);
  t.equal(requests[0].email, 'verify@example.com');
  t.equal(requests[0].identifier, 'basic_auth_signup');
  t.equal(requests[0].redirect_uri, `${server.url}/app`);
  t.not(requests[0].token, mailed[0].token, 'the plain token is never listed');
  t.equal(
    requests[0].token,
    createHash('sha256').update(mailed[0].token).digest('base64url'),
    'only its digest is stored',
  );
  t.ok(requests[0].expires > requests[0].created_at, 'an expiry after creation');
  t.equal(requests[0].expires, mailed[0].expiresAt);

  const login = await rest('login', { email: 'verify@example.com', password: PASSWORD });
  t.equal(login.status, 400, 'login refused until verified');
  t.equal(login.body.message, 'email not verified');
});

t.test('GraphQL lists the same request; the list needs the admin secret', async (t) => {
  const q =
    'query { _verification_requests { pagination { total } verification_requests { identifier email token } } }';
  const anon = await gql(q);
  t.ok(anon.errors?.length, 'anonymous callers are refused');
  const res = await gql(q, admin);
  t.equal(res.errors, undefined);
  const data = res.data?._verification_requests as {
    pagination: { total: number };
    verification_requests: { identifier: string; email: string }[];
  };
  t.equal(data.pagination.total, 1);
  t.same(
    data.verification_requests.map((r) => [r.identifier, r.email]),
    [['basic_auth_signup', 'verify@example.com']],
  );
  const paged = await gql(
    'query { _verification_requests(params: { pagination: { limit: 1, page: 2 } }) { pagination { page offset total } verification_requests { id } } }',
    admin,
  );
  t.same(paged.data?._verification_requests, {
    pagination: { page: 2, offset: 1, total: 1 },
    verification_requests: [],
  });
});

t.test('bad input to the admin list is a 4xx', async (t) => {
  const bad = await rest('admin/verification_requests', { pagination: { limit: 0 } }, admin);
  t.equal(bad.status, 400);
  const unknown = await rest('admin/verification_requests', { query: 'x' }, admin);
  t.equal(unknown.status, 400);
});

t.test('delete_user removes the verification request with the user', async (t) => {
  const other = await rest('signup', { email: 'keep@example.com', password: PASSWORD, confirm_password: PASSWORD });
  t.equal(other.status, 200);
  const id = ((await rest('admin/user', { email: 'verify@example.com' }, admin)).body as { id: string }).id;
  const del = await rest('admin/delete_user', { id }, admin);
  t.equal(del.status, 200);
  const list = await rest('admin/verification_requests', {}, admin);
  t.same(
    (list.body.verification_requests as Listed[]).map((r) => r.email),
    ['keep@example.com'],
    "only the other user's request is left",
  );
});

t.test('changing the email with verification on asks the new address for proof and ends the sessions', async (t) => {
  const { bearer } = await vouchedAndSignedIn('mover@example.com');
  const before = mailed.length;
  const change = await rest('update_profile', { email: 'Moved@Example.com' }, bearer);
  t.equal(change.status, 200);
  t.equal(change.body.message, 'Profile details updated successfully');
  t.same(
    mailed.slice(before).map((m) => [m.identifier, m.email]),
    [['update_email', 'moved@example.com']],
    'one mail, to the new address',
  );
  const listed = (await rest('admin/verification_requests', {}, admin)).body.verification_requests as Listed[];
  t.ok(
    listed.some((r) => r.identifier === 'update_email' && r.email === 'moved@example.com'),
    'the request is stored',
  );
  const profile = await fetch(`${server.url}/v1/profile`, { headers: bearer });
  t.equal(profile.status, 401, 'the session ended with the change');
  const refused = await rest('login', { email: 'moved@example.com', password: PASSWORD });
  t.same([refused.status, refused.body.message], [400, 'email not verified'], 'the new address waits for its proof');

  const old = await rest('login', { email: 'mover@example.com', password: PASSWORD });
  t.equal(old.status, 401, 'the old address no longer signs in');
});

t.test('a profile change that keeps the email sends nothing and keeps the session', async (t) => {
  const { bearer } = await vouchedAndSignedIn('stayer@example.com');
  const before = mailed.length;
  t.equal((await rest('update_profile', { email: 'STAYER@example.com', nickname: 'Stay' }, bearer)).status, 200);
  t.equal(mailed.length, before, 'no mail');
  t.equal((await fetch(`${server.url}/v1/profile`, { headers: bearer })).status, 200, 'the session lives');
});

t.test(
  'an admin moving a user to a new address with verification on: a request to the new address, sessions end',
  async (t) => {
    const { id, bearer } = await vouchedAndSignedIn('admin-moved@example.com');
    const before = mailed.length;
    const moved = await rest('admin/update_user', { id, email: 'Admin-Moved-2@Example.com' }, admin);
    t.equal(moved.status, 200);
    t.equal(moved.body.email_verified, false);
    t.same(
      mailed.slice(before).map((m) => [m.identifier, m.email]),
      [['update_email', 'admin-moved-2@example.com']],
      'one mail, to the new address',
    );
    const listed = (await rest('admin/verification_requests', {}, admin)).body.verification_requests as Listed[];
    t.ok(
      listed.some((r) => r.identifier === 'update_email' && r.email === 'admin-moved-2@example.com'),
      'the request is stored',
    );
    t.equal(
      (await fetch(`${server.url}/v1/profile`, { headers: bearer })).status,
      401,
      'the session ended with the change',
    );
  },
);

t.test('an admin moving a user and vouching for the new address: no mail, the session lives', async (t) => {
  const { id, bearer } = await vouchedAndSignedIn('vouched@example.com');
  const before = mailed.length;
  const moved = await rest('admin/update_user', { id, email: 'vouched-2@example.com', email_verified: true }, admin);
  t.equal(moved.status, 200);
  t.equal(moved.body.email_verified, true);
  t.equal(mailed.length, before, 'no mail');
  t.equal((await fetch(`${server.url}/v1/profile`, { headers: bearer })).status, 200, 'the session lives');
  t.equal(
    (await rest('login', { email: 'vouched-2@example.com', password: PASSWORD })).status,
    200,
    'the new address signs in',
  );
});
