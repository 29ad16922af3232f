/**
 * Invitations: `_invite_members` creates accounts for new addresses and mails each a link to the
 * reset form; the invited user sets a password with it and signs in. Over REST and GraphQL.
 */
import t from 'tap';
import { admin, gql, rest, signupInput, startMailServer } from './helpers.js';

const { server, sink, close } = await startMailServer();
t.teardown(close);

t.test('invited users set a password through the mailed link and sign in', async (t) => {
  await rest(server, 'signup', signupInput('old@example.com'));
  const invited = await gql<{
    _invite_members: { message: string; Users: { email: string; email_verified: boolean }[] };
  }>(
    server,
    'mutation($p: InviteMemberRequest!) { _invite_members(params: $p) { message Users { email email_verified } } }',
    { p: { emails: ['New@example.com', 'old@example.com', 'new@example.com'] } },
    admin,
  );
  t.same(invited.data?._invite_members, {
    message: 'Invitation sent successfully',
    Users: [{ email: 'new@example.com', email_verified: false }],
  });
  const mail = await sink.next('new@example.com');
  t.match(mail.subject, /You are invited to Latchkey/);
  const token = new URL(mail.link(`${server.url}/app/reset-password?token=`)!).searchParams.get('token');
  const set = await rest(server, 'reset_password', { token, password: 'Invited-1', confirm_password: 'Invited-1' });
  t.equal(set.status, 200);
  const login = await rest<{ user: { email_verified: boolean } }>(server, 'login', {
    email: 'new@example.com',
    password: 'Invited-1',
  });
  t.equal(login.status, 200);
  t.equal(login.body.user.email_verified, true, 'the link proved the address');
  await new Promise((r) => setTimeout(r, 300));
  t.notOk(
    sink.messages.some((m) => m.to === 'old@example.com'),
    'existing accounts are not mailed',
  );
});

t.test('bad input writes nothing', async (t) => {
  const bad = await rest(server, 'admin/invite_members', { emails: ['ok@example.com', 'not-an-email'] }, admin);
  t.equal(bad.status, 400);
  const evil = await rest(
    server,
    'admin/invite_members',
    { emails: ['ok@example.com'], redirect_uri: 'https://evil.example/' },
    admin,
  );
  t.equal(evil.status, 400);
  t.equal((await rest(server, 'admin/invite_members', { emails: [] }, admin)).status, 400);
  t.equal((await rest(server, 'admin/invite_members', { emails: ['ok@example.com'] })).status, 401);
  const users = await rest<{ pagination: { total: number } }>(
    server,
    'admin/users',
    { query: 'ok@example.com' },
    admin,
  );
  t.equal(users.body.pagination.total, 0);
});
