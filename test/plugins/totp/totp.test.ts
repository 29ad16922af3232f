/**
 * TOTP as a second factor over REST, GraphQL and gRPC: a user who turned MFA on is offered it at
 * login (no tokens, the `mfa` cookie), sets it up (secret, QR PNG, recovery codes), proves it with
 * a code computed by otplib, and from then on every login asks for it. A code is refused when
 * replayed in its time step, expired, or from another secret; recovery codes work once; five
 * wrong codes lock TOTP.
 */
import { generate, generateSecret } from 'otplib';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { TRANSPORTS, TransportClient } from '../mfa/transports.js';

const server = await startTestServer();
t.teardown(() => server.close());
const PASSWORD = 'Totp-pass-1';
const now = () => Math.floor(Date.now() / 1000);
const stepOf = (epoch: number) => Math.floor(epoch / 30);

interface Auth {
  message: string;
  access_token?: string;
  should_show_totp_screen?: boolean;
  should_offer_webauthn_mfa_setup?: boolean;
  authenticator_scanner_image?: string;
  authenticator_secret?: string;
  authenticator_recovery_codes?: string[];
  user?: { id: string; enrolled_mfa_methods: string[]; is_multi_factor_auth_enabled?: boolean };
}

for (const kind of TRANSPORTS) {
  t.test(`TOTP over ${kind}`, async (t) => {
    const c = new TransportClient(kind, server);
    t.teardown(() => c.close());
    const email = `totp-${kind}@example.com`;
    const signedUp = await c.ok<Auth>('signup', {
      email,
      password: PASSWORD,
      confirm_password: PASSWORD,
      is_multi_factor_auth_enabled: true,
    });
    t.notOk(signedUp.access_token, 'a signup that turns MFA on is offered it at once');
    c.jar.clear();

    // offer: MFA turned on, nothing set up, not skipped.
    const offered = await c.ok<Auth>('login', { email, password: PASSWORD });
    t.notOk(offered.access_token, 'offer: no access token');
    t.ok(c.cookie('mfa'), 'offer: the mfa cookie is set');
    t.notOk(c.cookie('cookie_session'), 'offer: no session cookie');
    t.equal(offered.should_offer_webauthn_mfa_setup, true, 'offer: passkey setup is offered');

    const setup = await c.ok<Auth>('totp_mfa_setup', {});
    t.match(setup.authenticator_scanner_image, /^data:image\/png;base64,/, 'a QR PNG data URL');
    t.match(setup.authenticator_secret, /^[A-Z2-7]{16,}$/, 'a base32 secret');
    t.equal(setup.authenticator_recovery_codes?.length, 10, 'ten recovery codes');
    const secret = setup.authenticator_secret!;
    const codes = setup.authenticator_recovery_codes!;

    const foreign = await generate({ secret: generateSecret() });
    const bad = await c.call('verify_otp', { otp: foreign, is_totp: true });
    t.match(bad, { ok: false, code: 'unauthenticated', message: 'invalid otp' }, 'a code of another secret is refused');

    const firstEpoch = now();
    const first = await c.ok<Auth>('verify_otp', { otp: await generate({ secret, epoch: firstEpoch }), is_totp: true });
    t.ok(first.access_token, 'the code finishes the sign-in with tokens');
    t.ok(c.cookie('cookie_session'), 'and the session cookie');
    t.notOk(c.cookie('mfa'), 'the mfa cookie is cleared');
    t.same(first.user?.enrolled_mfa_methods, ['totp'], 'enrolled_mfa_methods names totp');

    // verify: from now on every password login asks for the code.
    c.jar.clear();
    const asked = await c.ok<Auth>('login', { email, password: PASSWORD });
    t.notOk(asked.access_token, 'verify: no access token');
    t.equal(asked.should_show_totp_screen, true, 'verify: the TOTP screen');
    t.ok(c.cookie('mfa'), 'verify: the mfa cookie');

    const replay = await c.call('verify_otp', { otp: await generate({ secret, epoch: firstEpoch }), is_totp: true });
    t.match(replay, { ok: false, code: 'unauthenticated' }, 'the same code is refused in its time step');
    const expired = await c.call('verify_otp', { otp: await generate({ secret, epoch: now() - 180 }), is_totp: true });
    t.match(expired, { ok: false, code: 'unauthenticated' }, 'a code three minutes old is refused');
    const setupAgain = await c.call('totp_mfa_setup', {});
    t.match(setupAgain, { ok: false, code: 'unauthenticated' }, 'no new factor while a verified one is asked for');

    // The next step is within the tolerance, and later than the step used before.
    const next = await generate({ secret, epoch: (stepOf(firstEpoch) + 1) * 30 });
    const second = await c.ok<Auth>('verify_otp', { otp: next, is_totp: true });
    t.ok(second.access_token, 'a code of a later step is accepted');

    // A recovery code, once.
    c.jar.clear();
    await c.ok('login', { email, password: PASSWORD });
    const recovered = await c.ok<Auth>('verify_otp', { otp: codes[0].toLowerCase(), is_totp: true });
    t.ok(recovered.access_token, 'a recovery code (any case) finishes the sign-in');
    c.jar.clear();
    await c.ok('login', { email, password: PASSWORD });
    const reused = await c.call('verify_otp', { otp: codes[0], is_totp: true });
    t.match(reused, { ok: false, code: 'unauthenticated' }, 'a used recovery code is refused');

    // Five wrong codes lock TOTP (the one above counted as the first).
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await c.call('verify_otp', { otp: '000000', is_totp: true }));
    t.match(outcomes.at(-1), { ok: false, code: 'resource_exhausted' }, 'the fifth wrong code locks TOTP');
    const locked = await c.call('verify_otp', { otp: await generate({ secret }), is_totp: true });
    t.match(locked, { ok: false, code: 'resource_exhausted' }, 'while locked a right code is refused too');
  });
}
