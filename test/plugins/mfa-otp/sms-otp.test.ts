/**
 * SMS OTP as a second factor over REST, GraphQL and gRPC, with a Twilio-shaped SMS gateway on
 * 127.0.0.1: a phone-number account sets it up (a texted code proves the number); a password
 * login then texts a code and withholds the tokens; `resend_otp` replaces the code; a code from
 * an earlier text, or for another number, is refused; the offer names SMS for a phone account.
 */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { TRANSPORTS, TransportClient } from '../mfa/transports.js';
import { startSmsGateway } from '../sms/gateway-server.js';

const gateway = await startSmsGateway();
t.teardown(() => gateway.close());
const server = await startTestServer({
  flags: {
    'sms-account-sid': 'AC0123456789',
    'sms-api-key': 'SK-key',
    'sms-api-secret': 'sms-secret',
    'sms-sender': '+15550001111',
    'sms-gateway-url': gateway.url,
    'outbound-allow-cidrs': '127.0.0.1/32',
    'enable-mobile-basic-authentication': true,
  },
});
t.teardown(() => server.close());
const PASSWORD = 'Sms-otp-pass-1';
const nextCode = async (to: string) => (await gateway.next(to)).body.match(/\b(\d{6})\b/)![1];

interface Auth {
  access_token?: string;
  should_show_mobile_otp_screen?: boolean;
  should_offer_sms_otp_mfa_setup?: boolean;
  user?: { enrolled_mfa_methods: string[] };
}

const phones = { rest: '+15557000001', graphql: '+15557000002', grpc: '+15557000003' } as const;

for (const kind of TRANSPORTS) {
  t.test(`SMS OTP over ${kind}`, async (t) => {
    const phone = phones[kind];
    const anon = new TransportClient(kind, server);
    t.teardown(() => anon.close());
    const offered = await anon.ok<Auth>('signup', {
      phone_number: phone,
      password: PASSWORD,
      confirm_password: PASSWORD,
      is_multi_factor_auth_enabled: true,
    });
    t.notOk(offered.access_token, 'offer: no token');
    t.equal(offered.should_offer_sms_otp_mfa_setup, true, 'offer: SMS codes are offered to a phone account');

    // Set up on the offer (the mfa cookie), proven by a texted code.
    t.match(await anon.ok('sms_otp_mfa_setup', {}), { message: /sent by SMS/ });
    const setup = await nextCode(phone);
    const other = await anon.call('verify_otp', { otp: setup, phone_number: '+15557999999' });
    t.match(other, { ok: false, code: 'permission_denied' }, 'another number is refused');
    const enrolled = await anon.ok<Auth>('verify_otp', { otp: setup, phone_number: phone });
    t.ok(enrolled.access_token, 'the setup code finishes the offered sign-in');
    t.same(enrolled.user?.enrolled_mfa_methods, ['sms_otp']);

    // verify: a password login texts a code.
    anon.jar.clear();
    const asked = await anon.ok<Auth>('login', { phone_number: phone, password: PASSWORD });
    t.notOk(asked.access_token, 'verify: no token from the password alone');
    t.equal(asked.should_show_mobile_otp_screen, true, 'verify: the mobile OTP screen');
    const first = await nextCode(phone);
    await anon.ok('resend_otp', { phone_number: phone });
    const second = await nextCode(phone);
    if (first !== second)
      t.match(
        await anon.call('verify_otp', { otp: first }),
        { ok: false, code: 'unauthenticated' },
        'resent: old code dead',
      );
    t.match(await anon.call('verify_otp', { otp: setup }), { ok: false, code: 'unauthenticated' }, 'a spent code');
    const done = await anon.ok<Auth>('verify_otp', { otp: second, phone_number: phone });
    t.ok(done.access_token, 'the texted code finishes the login');
  });
}
