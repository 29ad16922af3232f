/**
 * Password reset end to end: `forgot_password` mails a link to the hosted reset form (or the
 * caller's allowed page) for known addresses and answers alike for unknown ones (the timing is
 * password-reset-timing.test.ts's); `reset_password` sets the password once per link and ends every session and refresh
 * token of the user. Over REST and GraphQL against a real SMTP server.
 */
import t from 'tap';
import { gql, open, rest, signupInput, startMailServer, PASSWORD } from './helpers.js';

const { server, sink, close } = await startMailServer({ 'email-limit-per-address': 1000, 'email-limit-per-ip': 1000 });
t.teardown(close);

const SENT = 'Please check your inbox! We have sent a password reset link.';
const NEW_PASSWORD = 'Fresh-pass-2';

await rest(server, 'signup', signupInput('rita@example.com', { given_name: 'Rita' }));

t.test('the link resets the password once and ends every session and refresh token', async (t) => {
  const login = await rest<{ access_token: string; refresh_token: string }>(server, 'login', {
    email: 'rita@example.com',
    password: PASSWORD,
    scope: ['openid', 'email', 'profile', 'offline_access'],
  });
  t.ok(login.body.refresh_token);
  const bearer = { authorization: `Bearer ${login.body.access_token}` };

  const asked = await gql(
    server,
    'mutation($p: ForgotPasswordRequest!) { forgot_password(params: $p) { message should_show_mobile_otp_screen } }',
    { p: { email: 'RITA@example.com' } },
  );
  t.same(asked.data, { forgot_password: { message: SENT, should_show_mobile_otp_screen: null } });
  const mail = await sink.next('rita@example.com');
  t.match(mail.subject, /Reset your Latchkey password/);
  t.match(mail.text, /Hello Rita/);
  const link = mail.link(`${server.url}/app/reset-password?token=`);
  t.ok(link, 'the link opens the hosted reset form');
  const token = new URL(link!).searchParams.get('token')!;

  const reset = (p: Record<string, unknown>) =>
    gql(server, 'mutation($p: ResetPasswordRequest!) { reset_password(params: $p) { message } }', { p });
  const weak = await reset({ token, password: 'x', confirm_password: 'x' });
  t.equal(weak.errors?.[0]?.extensions?.code, 'INVALID_ARGUMENT', 'a refused password...');
  const mismatch = await reset({ token, password: NEW_PASSWORD, confirm_password: 'Other-pass-3' });
  t.equal(mismatch.errors?.[0]?.message, 'password and confirm password does not match');
  const done = await reset({ token, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD });
  t.same(done.data, { reset_password: { message: 'Password updated successfully.' } }, '...leaves the link usable');
  const again = await reset({ token, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD });
  t.equal(again.errors?.[0]?.extensions?.code, 'INVALID_ARGUMENT', 'a link works once');

  t.equal((await fetch(`${server.url}/v1/profile`, { headers: bearer })).status, 401, 'the session ended');
  const refreshed = await rest(server, 'validate_jwt_token', {
    token_type: 'refresh_token',
    token: login.body.refresh_token,
  });
  t.equal(refreshed.body.is_valid, false, 'the refresh token ended');
  t.equal((await rest(server, 'login', { email: 'rita@example.com', password: PASSWORD })).status, 401);
  t.equal((await rest(server, 'login', { email: 'rita@example.com', password: NEW_PASSWORD })).status, 200);
});

t.test('the link goes to an allowed page of the caller; others are refused', async (t) => {
  const page = `${server.url}/my-reset`;
  const r = await rest(server, 'forgot_password', { email: 'rita@example.com', redirect_uri: page });
  t.equal(r.status, 200);
  t.ok((await sink.next('rita@example.com')).link(`${page}?token=`));
  const evil = await rest(server, 'forgot_password', {
    email: 'rita@example.com',
    redirect_uri: 'https://evil.example/x',
  });
  t.equal(evil.status, 400);
  t.match(evil.body, { code: 'invalid_argument' });
});

t.test('bad input is a 4xx', async (t) => {
  t.equal((await rest(server, 'forgot_password', {})).status, 400);
  t.equal((await rest(server, 'forgot_password', { email: 'nope' })).status, 400);
  t.match((await rest(server, 'forgot_password', { phone_number: '+15550001111' })).body, {
    code: 'failed_precondition',
  });
  t.equal(
    (await rest(server, 'reset_password', { password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })).status,
    400,
  );
  t.match(
    (
      await rest(server, 'reset_password', {
        otp: '123456',
        phone_number: '+15550001111',
        password: NEW_PASSWORD,
        confirm_password: NEW_PASSWORD,
      })
    ).body,
    { code: 'failed_precondition' },
  );
  t.equal(
    (await rest(server, 'reset_password', { token: 'nope', password: NEW_PASSWORD, confirm_password: NEW_PASSWORD }))
      .status,
    400,
  );
  t.equal((await open(`${server.url}/v1/reset_password`)).status, 405);
});
