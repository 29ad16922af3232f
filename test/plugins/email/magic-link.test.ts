/**
 * Magic link login end to end (`--enable-magic-link-login`): the mailed link signs in once,
 * creates the account when signup is enabled, keeps the roles and scopes asked for, and sends the
 * browser to an allowed redirect with the tokens and `state`. Over REST and GraphQL.
 */
import t from 'tap';
import { gql, open, rest, startMailServer } from './helpers.js';

const { server, sink, close } = await startMailServer({
  'enable-magic-link-login': true,
  roles: 'user,editor',
});
t.teardown(close);

const SENT = 'Magic Link has been sent to your email. Please check your inbox!';

t.test('a new address gets an account and a link that signs in once', async (t) => {
  const asked = await rest(server, 'magic_link_login', { email: 'Mia@Example.com', roles: ['editor'], state: 's1' });
  t.equal(asked.status, 200);
  t.same(asked.body, { message: SENT });
  const mail = await sink.next('mia@example.com');
  t.match(mail.subject, /Your sign-in link/);
  const link = mail.link(`${server.url}/verify_email?`)!;
  t.ok(link);
  const landed = await open(link);
  t.equal(landed.status, 200, 'no redirect asked: the AuthResponse as JSON');
  const auth = JSON.parse(landed.body) as {
    access_token: string;
    user: { email_verified: boolean; roles: string[]; signup_methods: string };
  };
  t.ok(auth.access_token);
  t.equal(auth.user.email_verified, true);
  t.same(auth.user.roles, ['editor']);
  t.match(auth.user.signup_methods, /magic_link_login/);
  const claims = (
    await rest<{ claims: Record<string, unknown> }>(server, 'validate_jwt_token', {
      token_type: 'access_token',
      token: auth.access_token,
    })
  ).body.claims;
  t.same(claims.role, ['editor'], 'the session holds the roles asked for');
  t.equal((await open(link)).status, 400, 'a link works once');
});

t.test('GraphQL request; verify_email redeems; a redirect carries tokens and state', async (t) => {
  const asked = await gql(server, 'mutation($p: MagicLinkLoginRequest!) { magic_link_login(params: $p) { message } }', {
    p: { email: 'mia@example.com', redirect_uri: `${server.url}/after`, state: 'xyz' },
  });
  t.same(asked.data, { magic_link_login: { message: SENT } });
  const link = (await sink.next('mia@example.com')).link(`${server.url}/verify_email?`)!;
  t.equal(new URL(link).searchParams.get('redirect_uri'), `${server.url}/after`);
  const landed = await open(link);
  t.equal(landed.status, 303);
  const to = new URL(landed.location!);
  t.equal(`${to.origin}${to.pathname}`, `${server.url}/after`);
  t.equal(to.searchParams.get('state'), 'xyz');
  t.ok(to.searchParams.get('access_token'));

  await rest(server, 'magic_link_login', { email: 'mia@example.com' });
  const token = new URL((await sink.next('mia@example.com')).link(`${server.url}/verify_email?`)!).searchParams.get(
    'token',
  );
  const verified = await gql<{ verify_email: { access_token: string; user: { email: string } } }>(
    server,
    'mutation($p: VerifyEmailRequest!) { verify_email(params: $p) { access_token user { email } } }',
    { p: { token } },
  );
  t.equal(verified.data?.verify_email.user.email, 'mia@example.com');
  t.ok(verified.data?.verify_email.access_token);
});

t.test('refusals', async (t) => {
  t.equal(
    (await rest(server, 'magic_link_login', { email: 'mia@example.com', roles: ['admin'] })).status,
    403,
    'a role the user lacks',
  );
  t.equal(
    (await rest(server, 'magic_link_login', { email: 'new@example.com', roles: ['admin'] })).status,
    400,
    'a role outside --roles',
  );
  t.equal((await rest(server, 'magic_link_login', { email: 'x' })).status, 400);
  t.equal((await rest(server, 'magic_link_login', {})).status, 400);
  t.equal(
    (await rest(server, 'magic_link_login', { email: 'mia@example.com', redirect_uri: 'https://evil.example/' }))
      .status,
    400,
  );
  const users = await rest<{ pagination: { total: number } }>(
    server,
    'admin/users',
    { query: 'new@example.com' },
    { 'x-service-admin-secret': 'test-admin-secret' },
  );
  t.equal(users.body.pagination.total, 0, 'a refused request creates no account');
});
