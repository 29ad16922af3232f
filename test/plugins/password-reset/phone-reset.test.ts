/**
 * Password reset by a texted code, with a Twilio-shaped gateway on 127.0.0.1: `forgot_password`
 * with a phone number texts a code and answers the same for an unknown number (which gets no
 * text); `reset_password` with the `otp` and the `phone_number` sets the password once, verifies
 * the number and ends the user's sessions; wrong codes count towards a lock; texts are limited per
 * number and per client IP; GraphQL answers the same.
 */
import t from 'tap';
import { gql, rest } from '../email/helpers.js';
import { otherThan, startPhoneServer } from '../phone-verification/helpers.js';

const { server, gateway, nextCode, close } = await startPhoneServer();
t.teardown(close);
const OLD = 'Phone-reset-1';
const NEW = 'Phone-reset-2';
const SENT = 'Please enter the OTP sent to your phone number and change your password.';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const signup = async (phone_number: string) => {
  const signed = await rest<{ access_token: string }>(server, 'signup', {
    phone_number,
    password: OLD,
    confirm_password: OLD,
  });
  if (signed.status !== 200) throw new Error(`signup ${signed.status}`);
  return signed.body.access_token;
};
const reset = (phone_number: string, otp: string, password = NEW, confirm_password = password) =>
  rest(server, 'reset_password', { phone_number, otp, password, confirm_password });

t.test('a texted code resets the password once and ends the sessions', async (t) => {
  const phone = '+15559000001';
  const token = await signup(phone);
  const asked = await rest(server, 'forgot_password', { phone_number: phone });
  t.equal(asked.status, 200);
  t.same(asked.body, { message: SENT, should_show_mobile_otp_screen: true });
  const code = await nextCode(phone);

  t.match(await reset(phone, otherThan(code)), {
    status: 400,
    body: { code: 'invalid_argument', message: 'invalid or expired otp' },
  });
  t.match(await reset(phone, code, NEW, 'Something-else-1'), { status: 400 }, 'a mismatch keeps the code');
  t.match(await reset(phone, code, 'short'), { status: 400 }, 'a refused password keeps the code');
  t.match(await reset('+15559000999', code), { status: 400 }, 'the code is the number’s only');
  const done = await reset(phone, code);
  t.match(done, { status: 200, body: { message: 'Password updated successfully.' } });
  t.match(await reset(phone, code), { status: 400 }, 'the code works once');

  const session = await rest(server, 'session', {}, { authorization: `Bearer ${token}` });
  t.equal(session.status, 401, 'the earlier session ended');
  t.equal((await rest(server, 'login', { phone_number: phone, password: OLD })).status, 401, 'old password dead');
  const login = await rest<{ user: { phone_number_verified: boolean } }>(server, 'login', {
    phone_number: phone,
    password: NEW,
  });
  t.equal(login.status, 200, 'the new password works');
  t.equal(login.body.user.phone_number_verified, true, 'the code proved the number');
});

t.test('an unknown number gets the same answer and no text', async (t) => {
  const asked = await rest(server, 'forgot_password', { phone_number: '+15559000002' });
  t.equal(asked.status, 200);
  t.same(asked.body, { message: SENT, should_show_mobile_otp_screen: true });
  await sleep(300);
  t.equal(gateway.texts.filter((m) => m.to === '+15559000002').length, 0);
  t.match(await reset('+15559000002', '123456'), { status: 400, body: { message: 'invalid or expired otp' } });
});

t.test('GraphQL: forgot_password and reset_password with the code', async (t) => {
  const phone = '+15559000003';
  await signup(phone);
  const asked = await gql<{ forgot_password: { message: string; should_show_mobile_otp_screen: boolean } }>(
    server,
    'mutation($p: ForgotPasswordRequest!) { forgot_password(params: $p) { message should_show_mobile_otp_screen } }',
    { p: { phone_number: phone } },
  );
  t.same(asked.data?.forgot_password, { message: SENT, should_show_mobile_otp_screen: true });
  const otp = await nextCode(phone);
  const wrong = await gql(server, 'mutation($p: ResetPasswordRequest!) { reset_password(params: $p) { message } }', {
    p: { phone_number: phone, otp: otherThan(otp), password: NEW, confirm_password: NEW },
  });
  t.match(wrong.errors, [{ message: 'invalid or expired otp', extensions: { code: 'INVALID_ARGUMENT' } }]);
  const done = await gql<{ reset_password: { message: string } }>(
    server,
    'mutation($p: ResetPasswordRequest!) { reset_password(params: $p) { message } }',
    { p: { phone_number: phone, otp, password: NEW, confirm_password: NEW } },
  );
  t.same(done.data?.reset_password, { message: 'Password updated successfully.' });
});

t.test('five wrong codes lock the number, known or not', async (t) => {
  const phone = '+15559000004';
  await signup(phone);
  await rest(server, 'forgot_password', { phone_number: phone });
  const code = await nextCode(phone);
  for (let i = 1; i <= 4; i++) t.match(await reset(phone, otherThan(code)), { status: 400 }, `wrong code ${i}`);
  t.match(await reset(phone, otherThan(code)), { status: 429, body: { code: 'resource_exhausted' } });
  t.match(await reset(phone, code), { status: 429 }, 'the right code no longer helps');
  for (let i = 1; i <= 4; i++) await reset('+15559000998', '000000');
  t.match(await reset('+15559000998', '000000'), { status: 429 }, 'an unknown number locks the same way');
});

t.test('bad input is a 4xx', async (t) => {
  t.match(await rest(server, 'forgot_password', { phone_number: 'not a number' }), { status: 400 });
  t.match(await rest(server, 'forgot_password', { phone_number: '5551234' }), { status: 400 }, 'not E.164');
  t.match(await rest(server, 'reset_password', { otp: '123456', password: NEW, confirm_password: NEW }), {
    status: 400,
    body: { message: 'otp and phone_number are required' },
  });
  t.match(await reset('not a number', '123456'), { status: 400 });
});

t.test('texts are limited per number, then per client IP', async (t) => {
  const phone = '+15559000005';
  for (let i = 1; i <= 5; i++)
    t.equal((await rest(server, 'forgot_password', { phone_number: phone })).status, 200, `text ${i}`);
  t.match(await rest(server, 'forgot_password', { phone_number: phone }), {
    status: 429,
    body: { code: 'resource_exhausted', message: /for this number/ },
  });
  let limited = false;
  for (let i = 10; i < 40 && !limited; i++) {
    const r = await rest(server, 'forgot_password', { phone_number: `+155590001${i}` });
    if (r.status === 429) {
      t.match(r.body, { code: 'resource_exhausted', message: /from this address/ });
      limited = true;
    }
  }
  t.ok(limited, 'one client IP cannot text every number');
});
