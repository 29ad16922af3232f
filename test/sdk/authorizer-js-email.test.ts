/**
 * The authorizer-js SDK's mail flows, unchanged, against a started server with a real SMTP sink:
 * forgotPassword, resetPassword, magicLinkLogin, verifyEmail and resendVerifyEmail.
 */
import t from 'tap';
import { Authorizer } from '@authorizerdev/authorizer-js';
import { TEST_CLIENT_ID } from '../helpers/server.js';
import { startMailServer } from '../plugins/email/helpers.js';

const { server, sink, close } = await startMailServer({
  'enable-email-verification': true,
  'enable-magic-link-login': true,
});
t.teardown(close);

const sdk = new Authorizer({
  authorizerURL: server.url,
  redirectURL: `${server.url}/app`,
  clientID: TEST_CLIENT_ID,
  extraHeaders: { Origin: server.url },
});
const tokenOf = (link: string | undefined) => new URL(link!).searchParams.get('token')!;
const PASSWORD = 'Sdk-mail-1';

t.test('signup, resendVerifyEmail, verifyEmail', async (t) => {
  const signed = await sdk.signup({ email: 'sdkmail@example.com', password: PASSWORD, confirm_password: PASSWORD });
  t.same(signed.errors, []);
  t.equal(signed.data?.message, 'Verification email has been sent. Please check your inbox');
  await sink.next('sdkmail@example.com');
  const resent = await sdk.resendVerifyEmail({ email: 'sdkmail@example.com', identifier: 'basic_auth_signup' });
  t.same(resent.errors, []);
  t.equal(resent.data?.message, 'Verification email has been sent. Please check your inbox');
  const token = tokenOf((await sink.next('sdkmail@example.com')).link(`${server.url}/verify_email?`));
  const verified = await sdk.verifyEmail({ token });
  t.same(verified.errors, []);
  t.ok(verified.data?.access_token);
  t.equal(verified.data?.user?.email_verified, true);
  const bad = await sdk.verifyEmail({ token });
  t.match(bad.errors, [{ message: 'invalid or expired token' }]);
});

t.test('forgotPassword and resetPassword', async (t) => {
  const asked = await sdk.forgotPassword({ email: 'sdkmail@example.com' });
  t.same(asked.errors, []);
  t.equal(asked.data?.message, 'Please check your inbox! We have sent a password reset link.');
  // The SDK sends its redirectURL as redirect_uri: the link opens the app's own page with the token.
  const token = tokenOf((await sink.next('sdkmail@example.com')).link(`${server.url}/app?token=`));
  const reset = await sdk.resetPassword({ token, password: 'Sdk-mail-2', confirm_password: 'Sdk-mail-2' });
  t.same(reset.errors, []);
  t.equal(reset.data?.message, 'Password updated successfully.');
  const login = await sdk.login({ email: 'sdkmail@example.com', password: 'Sdk-mail-2' });
  t.same(login.errors, []);
  t.ok(login.data?.access_token);
});

t.test('magicLinkLogin, then verifyEmail with the link token', async (t) => {
  const asked = await sdk.magicLinkLogin({ email: 'sdkmagic@example.com' });
  t.same(asked.errors, []);
  t.equal(asked.data?.message, 'Magic Link has been sent to your email. Please check your inbox!');
  const link = (await sink.next('sdkmagic@example.com')).link(`${server.url}/verify_email?`);
  t.equal(
    new URL(link!).searchParams.get('redirect_uri'),
    `${server.url}/app`,
    'the SDK asks to come back to its page',
  );
  const verified = await sdk.verifyEmail({ token: tokenOf(link) });
  t.same(verified.errors, []);
  t.equal(verified.data?.user?.email, 'sdkmagic@example.com');
  t.ok(verified.data?.access_token);
});
