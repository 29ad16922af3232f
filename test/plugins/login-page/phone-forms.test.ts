/**
 * The hosted page's phone forms without a browser (plain form posts, as a browser without
 * JavaScript sends them), texting through a Twilio-shaped gateway on 127.0.0.1: the sign-in and
 * sign-up forms switch to a phone number; a number waiting for its proof gets the code form, where
 * "send a new code" replaces the code; the reset by texted code answers an unknown number as it
 * answers a known one; bad input comes back on the form as a 4xx; a post without an Origin is
 * refused (CSRF).
 */
import t from 'tap';
import { otherThan, startPhoneServer } from '../phone-verification/helpers.js';
import { formClient, hidden } from './form-client.js';

const { server, gateway, nextCode, close } = await startPhoneServer({
  'enable-login-page': true,
  'app-cookie-same-site': 'lax',
  'enable-phone-verification': true,
});
t.teardown(close);
const PASSWORD = 'Phone-form-pass-1';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('the sign-in and sign-up forms offer a phone number', async (t) => {
  const b = formClient(server.url);
  const login = await b.get('/app');
  t.match(login.html, 'id="use-phone" href="/app?return_to=%2Fapp&amp;method=phone"');
  const phoneLogin = await b.get('/app?method=phone');
  t.match(phoneLogin.html, '<input id="phone_number" name="phone_number" type="tel"');
  t.notMatch(phoneLogin.html, 'name="email"');
  t.match(phoneLogin.html, 'href="/app/forgot-password/phone?return_to=%2Fapp"', 'the reset by SMS');
  t.notMatch(phoneLogin.html, 'href="/app/forgot-password?', 'not the mailed reset');
  const signup = await b.get('/app?screen_hint=signup&method=phone');
  t.match(signup.html, '<form method="post" action="/app/signup">');
  t.match(signup.html, 'name="phone_number"');
  t.match(signup.html, 'name="confirm_password"');
});

t.test('a new number gets the code form; a new code replaces the first', async (t) => {
  const phone = '+15558300001';
  const b = formClient(server.url);
  const signed = await b.post('/app/signup', {
    phone_number: phone,
    password: PASSWORD,
    confirm_password: PASSWORD,
    return_to: '/app',
  });
  t.equal(signed.status, 200);
  t.match(signed.html, '<h1>Verify your phone number</h1>');
  t.equal(hidden(signed.html, 'phone_number'), phone, 'the number rides in the form');
  t.notOk(b.jar.has('cookie_session'), 'no session yet');
  const first = await nextCode(phone);

  const resent = await b.post('/app/phone/resend', { phone_number: phone, return_to: '/app' });
  t.equal(resent.status, 200);
  t.match(resent.html, 'A new code is on its way.');
  const second = await nextCode(phone);
  if (first !== second) {
    const old = await b.post('/app/phone/verify', { phone_number: phone, otp: first, return_to: '/app' });
    t.equal(old.status, 401, 'the first code stopped working');
    t.match(old.html, 'role="alert">invalid otp<');
    t.equal(hidden(old.html, 'phone_number'), phone, 'the form keeps the number');
  }
  const done = await b.post('/app/phone/verify', { phone_number: phone, otp: second, return_to: '/app' });
  t.equal(done.status, 303);
  t.equal(done.location, '/app');
  t.ok(b.jar.has('cookie_session'), 'the proven number signs in');

  // A later sign-in with the proven number needs no code.
  const later = formClient(server.url);
  const again = await later.post('/app/login', { phone_number: phone, password: PASSWORD, return_to: '/app' });
  t.equal(again.status, 303);
  t.ok(later.jar.has('cookie_session'));
});

t.test('the reset by texted code answers unknown numbers as known ones', async (t) => {
  const phone = '+15558300002';
  const b = formClient(server.url);
  await b.post('/app/signup', { phone_number: phone, password: PASSWORD, confirm_password: PASSWORD });
  const verify = await nextCode(phone);
  await b.post('/app/phone/verify', { phone_number: phone, otp: verify });

  const form = await b.get('/app/forgot-password/phone?return_to=%2Fapp');
  t.equal(form.status, 200);
  t.match(form.html, '<form method="post" action="/app/forgot-password/phone">');
  const known = await b.post('/app/forgot-password/phone', { phone_number: phone, return_to: '/app' });
  const unknown = await b.post('/app/forgot-password/phone', { phone_number: '+15558300999', return_to: '/app' });
  t.equal(known.status, 200);
  t.equal(unknown.status, 200);
  t.equal(unknown.html.replaceAll('+15558300999', phone), known.html, 'the same page, but for the number it names');
  const code = await nextCode(phone);
  await sleep(200);
  t.equal(gateway.texts.filter((m) => m.to === '+15558300999').length, 0, 'no text to the unknown number');

  const wrong = await b.post('/app/reset-password/phone', {
    phone_number: phone,
    otp: otherThan(code),
    password: 'Phone-form-pass-2',
    confirm_password: 'Phone-form-pass-2',
  });
  t.equal(wrong.status, 400);
  t.match(wrong.html, 'role="alert">invalid or expired otp<');
  t.equal(hidden(wrong.html, 'phone_number'), phone, 'the form keeps the number');
  const mismatch = await b.post('/app/reset-password/phone', {
    phone_number: phone,
    otp: code,
    password: 'Phone-form-pass-2',
    confirm_password: 'Phone-form-pass-3',
  });
  t.equal(mismatch.status, 400, 'a mismatch is refused and keeps the code');
  const done = await b.post('/app/reset-password/phone', {
    phone_number: phone,
    otp: code,
    password: 'Phone-form-pass-2',
    confirm_password: 'Phone-form-pass-2',
  });
  t.equal(done.status, 200);
  t.match(done.html, '<h1>Password changed</h1>');
  const login = await formClient(server.url).post('/app/login', {
    phone_number: phone,
    password: 'Phone-form-pass-2',
  });
  t.equal(login.status, 303, 'the new password signs in');
});

t.test('bad input comes back on the form; a post without an origin is refused', async (t) => {
  const b = formClient(server.url);
  const bad = await b.post('/app/forgot-password/phone', { phone_number: '5551234', return_to: '/app' });
  t.equal(bad.status, 400);
  t.match(bad.html, 'role="alert">phone number must be in E.164 form');
  t.match(bad.html, 'value="5551234"', 'the number stays filled in');
  const badSignup = await b.post('/app/signup', {
    phone_number: 'not a number',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  t.equal(badSignup.status, 400);
  t.match(badSignup.html, 'name="phone_number"', 'the phone sign-up form again');
  const emptyCode = await b.post('/app/phone/verify', { phone_number: '+15558300003', otp: '' });
  t.ok(emptyCode.status >= 400 && emptyCode.status < 500, `an empty code is a ${emptyCode.status}`);
  const noOrigin = await b.post('/app/phone/resend', { phone_number: '+15558300004' }, null);
  t.equal(noOrigin.status, 403, 'a post without an origin is refused');
  await sleep(200);
  t.equal(gateway.texts.filter((m) => m.to === '+15558300004').length, 0, 'and texts nothing');
});
