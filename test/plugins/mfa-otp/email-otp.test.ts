/**
 * Email OTP as a second factor over REST, GraphQL and gRPC, with a real SMTP server: a signed-in
 * user sets it up (a code by mail proves the address), and from then on a password login mails a
 * code and withholds the tokens until it is entered. `resend_otp` replaces the code; a code is
 * single use; wrong codes count towards the lockout; `lock_mfa` is refused while a verified email
 * factor is the fallback.
 */
import t from 'tap';
import { startMailServer } from '../email/helpers.js';
import { TRANSPORTS, TransportClient } from '../mfa/transports.js';

const mail = await startMailServer();
t.teardown(() => mail.close());
const { server, sink } = mail;
const PASSWORD = 'Otp-pass-1';

const codeIn = (text: string): string => {
  const m = text.match(/\b(\d{6})\b/);
  if (!m) throw new Error(`no code in ${text}`);
  return m[1];
};
const nextCode = async (to: string) => codeIn((await sink.next(to)).text);

interface Auth {
  message: string;
  access_token?: string;
  should_show_email_otp_screen?: boolean;
  user?: { enrolled_mfa_methods: string[]; is_multi_factor_auth_enabled?: boolean };
}

for (const kind of TRANSPORTS) {
  t.test(`email OTP over ${kind}`, async (t) => {
    const email = `otp-${kind}@example.com`;
    const anon = new TransportClient(kind, server);
    t.teardown(() => anon.close());
    const signedUp = await anon.ok<Auth>('signup', { email, password: PASSWORD, confirm_password: PASSWORD });
    const c = new TransportClient(kind, server, { authorization: `Bearer ${signedUp.access_token}` });
    t.teardown(() => c.close());

    // No SMS gateway configured here: SMS codes cannot be set up (and are never offered).
    t.match(await c.call('sms_otp_mfa_setup', {}), { ok: false, code: 'failed_precondition' }, 'no SMS gateway');

    // Explicit enrollment while signed in: a code proves the address.
    t.match(await c.ok('email_otp_mfa_setup', {}), { message: /sent/ });
    const setupCode = await nextCode(email);
    const wrong = await c.call('verify_otp', { otp: setupCode === '123456' ? '654321' : '123456' });
    t.match(wrong, { ok: false, code: 'unauthenticated', message: 'invalid otp' }, 'a wrong code is refused');
    const other = await c.call('email_otp_mfa_setup', { email: 'someone-else@example.com' });
    t.match(other, { ok: false, code: 'permission_denied' }, 'codes go only to the caller’s own address');
    const enrolled = await c.ok<Auth>('verify_otp', { otp: setupCode });
    t.same(enrolled.user?.enrolled_mfa_methods, ['email_otp'], 'email_otp is enrolled');
    t.equal(enrolled.user?.is_multi_factor_auth_enabled, true, 'and MFA is on');

    // verify: a password login mails a code and issues nothing.
    const asked = await anon.ok<Auth>('login', { email, password: PASSWORD });
    t.notOk(asked.access_token, 'no access token before the code');
    t.equal(asked.should_show_email_otp_screen, true, 'the email OTP screen');
    t.ok(anon.cookie('mfa'), 'the mfa cookie');
    const first = await nextCode(email);

    const cookieBefore = anon.cookie('mfa');
    t.match(await anon.ok('resend_otp', {}), { message: /new verification code/ });
    t.ok(
      anon.lastSetCookies.some((c) => c.startsWith(`mfa=${cookieBefore};`) && /Max-Age=600/.test(c)),
      'resend_otp sets the mfa cookie again, renewed',
    );
    const second = await nextCode(email);
    if (first !== second) {
      const stale = await anon.call('verify_otp', { otp: first });
      t.match(stale, { ok: false, code: 'unauthenticated' }, 'resend_otp invalidates the previous code');
    }
    const locked = await anon.call('lock_mfa', {});
    t.match(locked, { ok: false, code: 'failed_precondition' }, 'lock_mfa is refused with a verified email fallback');
    const done = await anon.ok<Auth>('verify_otp', { otp: second, email });
    t.ok(done.access_token, 'the mailed code finishes the sign-in');
    t.notOk(anon.cookie('mfa'), 'the mfa cookie is cleared');

    // Single use: the same code does not finish a second sign-in.
    anon.jar.clear();
    await anon.ok('login', { email, password: PASSWORD });
    const third = await nextCode(email);
    const reused = await anon.call('verify_otp', { otp: second });
    if (second !== third) t.match(reused, { ok: false, code: 'unauthenticated' }, 'a used code is refused');
    const noCookie = new TransportClient(kind, server);
    t.teardown(() => noCookie.close());
    const foreign = await noCookie.call('verify_otp', { otp: third, email });
    t.match(foreign, { ok: false, code: 'unauthenticated' }, 'a code without its sign-in’s cookie finishes nothing');
    t.ok((await anon.ok<Auth>('verify_otp', { otp: third })).access_token, 'the live code still works');
  });
}
