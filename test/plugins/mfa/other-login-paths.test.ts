/**
 * The gate on login paths other than the password: proving an email address (verify_email) and a
 * magic link both end in the same sign-in step, so a user with a factor set up gets no tokens from
 * them alone, only the `mfa` cookie and the factor's screen; the factor then finishes the sign-in.
 */
import { generate } from 'otplib';
import t from 'tap';
import { startMailServer } from '../email/helpers.js';
import { TransportClient } from './transports.js';

const mail = await startMailServer({ 'enable-email-verification': true, 'enable-magic-link-login': true });
t.teardown(() => mail.close());
const { server, sink } = mail;
const PASSWORD = 'Paths-pass-1';
const tokenOf = (link: string | undefined) => new URL(link!).searchParams.get('token')!;

interface Auth {
  message: string;
  access_token?: string;
  should_show_totp_screen?: boolean;
  should_offer_webauthn_mfa_setup?: boolean;
  authenticator_secret?: string;
}

t.test('verify_email and the magic link pass the MFA gate', async (t) => {
  const email = 'paths@example.com';
  const c = new TransportClient('rest', server);
  t.teardown(() => c.close());
  await c.ok('signup', { email, password: PASSWORD, confirm_password: PASSWORD, is_multi_factor_auth_enabled: true });
  const link = (await sink.next(email)).link(`${server.url}/verify_email?`);

  // Proving the address is a first factor: the user turned MFA on, so the setup is offered.
  const proven = await c.ok<Auth>('verify_email', { token: tokenOf(link) });
  t.notOk(proven.access_token, 'verify_email: no token, MFA is offered');
  t.equal(proven.should_offer_webauthn_mfa_setup, true);
  t.ok(c.cookie('mfa'), 'the mfa cookie');
  const setup = await c.ok<Auth>('totp_mfa_setup', {});
  const secret = setup.authenticator_secret!;
  const first = await c.ok<Auth>('verify_otp', { otp: await generate({ secret }), is_totp: true });
  t.ok(first.access_token, 'TOTP set up on the offer finishes the sign-in');

  // A magic link now needs the TOTP code too.
  c.jar.clear();
  await c.ok('magic_link_login', { email });
  const magic = (await sink.next(email)).text.match(/https?:\/\/\S+/g)!.find((l) => l.includes('token='))!;
  const res = await fetch(magic, { redirect: 'manual', headers: { accept: 'application/json' } });
  const setCookies = res.headers.getSetCookie();
  t.ok(
    setCookies.some((l) => l.startsWith('mfa=')),
    'the magic link sets the mfa cookie',
  );
  t.notOk(
    setCookies.some((l) => l.startsWith('cookie_session=')),
    'and no session cookie: the link alone does not sign in',
  );
  const cookie = setCookies.find((l) => l.startsWith('mfa='))!.split(';')[0];
  const after = new TransportClient('rest', server, { cookie });
  t.teardown(() => after.close());
  const next = await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
  const done = await after.ok<Auth>('verify_otp', { otp: next, is_totp: true });
  t.ok(done.access_token, 'the TOTP code finishes the magic-link sign-in');
});
