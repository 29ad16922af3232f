/**
 * Email verification end to end (`--enable-email-verification`): signup mails a link, the link
 * and `verify_email` prove the address and sign in, login of an unverified address issues
 * nothing, `resend_verify_email` mails a fresh link, and a change of address is proven the same
 * way. Over REST and GraphQL, against a real SMTP server.
 */
import t from 'tap';
import { open, rest, gql, signupInput, startMailServer, admin, PASSWORD } from './helpers.js';

const { server, sink, close } = await startMailServer({ 'enable-email-verification': true });
t.teardown(close);

const VERIFICATION_SENT = 'Verification email has been sent. Please check your inbox';

t.test('signup mails a link; the link signs in; login works after', async (t) => {
  const signed = await rest(server, 'signup', signupInput('ada@example.com', { given_name: 'Ada' }));
  t.equal(signed.status, 200);
  t.equal(signed.body.message, VERIFICATION_SENT);
  t.notOk(signed.body.access_token, 'no token before the address is proven');

  const before = await rest(server, 'login', { email: 'ada@example.com', password: PASSWORD });
  t.equal(before.status, 400);
  t.equal(before.body.message, 'email not verified');

  const mail = await sink.next('ada@example.com');
  t.match(mail.subject, /Verify your email address/);
  t.match(mail.text, /Hello Ada/);
  t.match(mail.html, /Hello Ada/);
  const link = mail.link(`${server.url}/verify_email?`);
  t.ok(link, 'the mail links to /verify_email');

  const landed = await open(link!);
  t.equal(landed.status, 200);
  const auth = JSON.parse(landed.body) as { access_token?: string; message: string; user: { email_verified: boolean } };
  t.ok(auth.access_token, 'the link answers tokens');
  t.equal(auth.message, 'Email verified successfully.');
  t.equal(auth.user.email_verified, true);
  t.match(landed.headers.get('set-cookie') ?? '', /cookie_session=/, 'and sets the session cookie');

  const again = await open(link!);
  t.equal(again.status, 400, 'a link works once');
  t.match(JSON.parse(again.body), { code: 'invalid_argument' });

  const after = await rest(server, 'login', { email: 'ada@example.com', password: PASSWORD });
  t.equal(after.status, 200);
  t.ok(after.body.access_token);
});

t.test('verify_email over GraphQL; resend_verify_email mails a fresh link', async (t) => {
  const signed = await gql(server, 'mutation($p: SignUpRequest!) { signup(params: $p) { message } }', {
    p: signupInput('bob@example.com'),
  });
  t.same(signed.errors, undefined);
  const first = (await sink.next('bob@example.com')).link(`${server.url}/verify_email?`)!;

  const resent = await gql(
    server,
    'mutation($p: ResendVerifyEmailRequest!) { resend_verify_email(params: $p) { message } }',
    { p: { email: 'bob@example.com', identifier: 'basic_auth_signup' } },
  );
  t.same(resent.data, { resend_verify_email: { message: VERIFICATION_SENT } });
  const second = (await sink.next('bob@example.com')).link(`${server.url}/verify_email?`)!;
  t.not(second, first);

  const token = (link: string) => new URL(link).searchParams.get('token')!;
  const stale = await gql(server, 'mutation($p: VerifyEmailRequest!) { verify_email(params: $p) { message } }', {
    p: { token: token(first) },
  });
  t.equal(stale.errors?.[0]?.extensions?.code, 'INVALID_ARGUMENT', 'the resend replaced the first link');

  const verified = await gql<{ verify_email: { message: string; access_token: string; user: { email: string } } }>(
    server,
    'mutation($p: VerifyEmailRequest!) { verify_email(params: $p) { message access_token user { email email_verified } } }',
    { p: { token: token(second) } },
  );
  t.same(verified.errors, undefined);
  t.equal(verified.data?.verify_email.user.email, 'bob@example.com');
  t.ok(verified.data?.verify_email.access_token);
});

t.test('resend for unknown or verified addresses answers alike and sends nothing', async (t) => {
  const count = sink.messages.length;
  for (const email of ['nobody@example.com', 'ada@example.com']) {
    const r = await rest(server, 'resend_verify_email', { email, identifier: 'basic_auth_signup' });
    t.equal(r.status, 200);
    t.equal(r.body.message, VERIFICATION_SENT);
  }
  const bad = await rest(server, 'resend_verify_email', { email: 'ada@example.com', identifier: 'other' });
  t.equal(bad.status, 400);
  const malformed = await rest(server, 'resend_verify_email', {
    email: 'not-an-email',
    identifier: 'basic_auth_signup',
  });
  t.equal(malformed.status, 400);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(sink.messages.length, count);
});

t.test('a new address (update_profile, update_user) is proven by mail', async (t) => {
  await rest(server, 'signup', signupInput('cy@example.com'));
  await open((await sink.next('cy@example.com')).link(`${server.url}/verify_email?`)!);
  const login = await rest<{ access_token: string; user: { id: string } }>(server, 'login', {
    email: 'cy@example.com',
    password: PASSWORD,
  });
  const bearer = { authorization: `Bearer ${login.body.access_token}` };
  const changed = await rest(server, 'update_profile', { email: 'cy2@example.com' }, bearer);
  t.equal(changed.status, 200);
  const mail = await sink.next('cy2@example.com');
  t.match(mail.subject, /Confirm your new email address/);
  const refused = await rest(server, 'login', { email: 'cy2@example.com', password: PASSWORD });
  t.equal(refused.status, 400, 'the new address is unverified until proven');
  const landed = await open(mail.link(`${server.url}/verify_email?`)!);
  t.equal(landed.status, 200);
  t.equal((await rest(server, 'login', { email: 'cy2@example.com', password: PASSWORD })).status, 200);

  const byAdmin = await rest(server, 'admin/update_user', { id: login.body.user.id, email: 'cy3@example.com' }, admin);
  t.equal(byAdmin.status, 200);
  t.match((await sink.next('cy3@example.com')).subject, /Confirm your new email address/);
  const marked = await rest(
    server,
    'admin/update_user',
    { id: login.body.user.id, email: 'cy4@example.com', email_verified: true },
    admin,
  );
  t.equal(marked.status, 200);
  await new Promise((r) => setTimeout(r, 300));
  t.notOk(
    sink.messages.some((m) => m.to === 'cy4@example.com'),
    'an address the admin marks verified gets no mail',
  );
});

t.test('bad tokens on the route and the operation are 4xx', async (t) => {
  t.equal((await open(`${server.url}/verify_email`)).status, 400);
  t.equal((await open(`${server.url}/verify_email?token=${'x'.repeat(300)}`)).status, 400);
  t.equal((await open(`${server.url}/verify_email?token=nope`)).status, 400);
  t.equal((await rest(server, 'verify_email', { token: 'nope' })).status, 400);
  t.equal((await rest(server, 'verify_email', {})).status, 400);
});
