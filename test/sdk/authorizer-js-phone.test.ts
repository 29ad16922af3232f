/**
 * The authorizer-js SDK's phone flows, unchanged, against a started server that texts through a
 * Twilio-shaped gateway on 127.0.0.1: signup with a phone number under
 * --enable-phone-verification, resendOtp and verifyOtp with the number; forgotPassword and
 * resetPassword with a texted code.
 */
import t from 'tap';
import { Authorizer } from '@authorizerdev/authorizer-js';
import { TEST_CLIENT_ID } from '../helpers/server.js';
import { startPhoneServer } from '../plugins/phone-verification/helpers.js';

const { server, nextCode, close } = await startPhoneServer({ 'enable-phone-verification': true });
t.teardown(close);

const sdk = new Authorizer({
  authorizerURL: server.url,
  redirectURL: `${server.url}/app`,
  clientID: TEST_CLIENT_ID,
  extraHeaders: { Origin: server.url },
});
const PHONE = '+15557700001';
const PASSWORD = 'Sdk-phone-1';

t.test('getMetaData says phone verification is on', async (t) => {
  const meta = await sdk.getMetaData();
  t.same(meta.errors, []);
  t.equal(meta.data?.is_phone_verification_enabled, true);
  t.equal(meta.data?.is_mobile_basic_authentication_enabled, true);
});

t.test('signup, resendOtp, verifyOtp, login', async (t) => {
  const signed = await sdk.signup({ phone_number: PHONE, password: PASSWORD, confirm_password: PASSWORD });
  t.same(signed.errors, []);
  t.equal(signed.data?.should_show_mobile_otp_screen, true);
  t.notOk(signed.data?.access_token, 'no token before the number is proven');
  await nextCode(PHONE);
  const resent = await sdk.resendOtp({ phone_number: PHONE });
  t.same(resent.errors, []);
  t.equal(resent.data?.message, 'A new verification code was sent by SMS');
  const verified = await sdk.verifyOtp({ phone_number: PHONE, otp: await nextCode(PHONE) });
  t.same(verified.errors, []);
  t.ok(verified.data?.access_token);
  t.equal(verified.data?.user?.phone_number_verified, true);
  const login = await sdk.login({ phone_number: PHONE, password: PASSWORD });
  t.same(login.errors, []);
  t.ok(login.data?.access_token);
});

t.test('forgotPassword and resetPassword with a texted code', async (t) => {
  const asked = await sdk.forgotPassword({ phone_number: PHONE });
  t.same(asked.errors, []);
  t.equal(asked.data?.should_show_mobile_otp_screen, true);
  t.equal(asked.data?.message, 'Please enter the OTP sent to your phone number and change your password.');
  const otp = await nextCode(PHONE);
  const wrong = await sdk.resetPassword({
    phone_number: PHONE,
    otp: otp === '000000' ? '000001' : '000000',
    password: 'Sdk-phone-2',
    confirm_password: 'Sdk-phone-2',
  });
  t.match(wrong.errors, [{ message: 'invalid or expired otp' }]);
  const reset = await sdk.resetPassword({
    phone_number: PHONE,
    otp,
    password: 'Sdk-phone-2',
    confirm_password: 'Sdk-phone-2',
  });
  t.same(reset.errors, []);
  t.equal(reset.data?.message, 'Password updated successfully.');
  const login = await sdk.login({ phone_number: PHONE, password: 'Sdk-phone-2' });
  t.same(login.errors, []);
  t.ok(login.data?.access_token);
});
