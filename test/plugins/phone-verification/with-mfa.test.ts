/**
 * Phone verification beside MFA: the number is proven before the MFA gate asks for a factor (so
 * an MFA code can never stand in for the proof), and without MFA codes in the build
 * (`--disable-mfa`) `verify_otp` and `resend_otp` still serve it.
 */
import t from 'tap';
import { rest } from '../email/helpers.js';
import { startPhoneServer } from './helpers.js';

const PASSWORD = 'Phone-pass-3';

t.test('the number is proven before the MFA gate asks for a factor', async (t) => {
  const mfa = await startPhoneServer({ 'enable-phone-verification': true, 'enforce-mfa': true });
  t.teardown(mfa.close);
  const phone = '+15558100005';
  const signed = await rest(mfa.server, 'signup', {
    phone_number: phone,
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  t.match(signed.body, { should_show_mobile_otp_screen: true });
  t.notOk(signed.body.should_offer_sms_otp_mfa_setup, 'no MFA offer before the proof');
  const verified = await rest(mfa.server, 'verify_otp', { phone_number: phone, otp: await mfa.nextCode(phone) });
  t.equal(verified.status, 200);
  t.notOk(verified.body.access_token, 'enforced MFA still withholds the session');
  t.equal(verified.body.should_offer_sms_otp_mfa_setup, true, 'and offers a factor next');
  const user = await mfa.server.kernel.service('users').findByPhone(phone);
  t.ok(user?.phoneNumberVerifiedAt, 'the number is verified');
});

t.test('without MFA codes (--disable-mfa) verify_otp and resend_otp still serve the proof', async (t) => {
  const plain = await startPhoneServer({ 'enable-phone-verification': true, 'disable-mfa': true });
  t.teardown(plain.close);
  const phone = '+15558100006';
  const signed = await rest(plain.server, 'signup', {
    phone_number: phone,
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  t.match(signed.body, { should_show_mobile_otp_screen: true });
  await plain.nextCode(phone);
  t.match(await rest(plain.server, 'resend_otp', { phone_number: phone }), { status: 200 });
  t.match(await rest(plain.server, 'resend_otp', { phone_number: '+15558199998' }), { status: 401 });
  const verified = await rest(plain.server, 'verify_otp', { phone_number: phone, otp: await plain.nextCode(phone) });
  t.equal(verified.status, 200);
  t.ok(verified.body.access_token);
});
