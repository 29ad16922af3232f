/**
 * Phone verification (`--enable-phone-verification`) over REST, GraphQL and gRPC with a
 * Twilio-shaped gateway on 127.0.0.1: a phone signup gets no session but a texted code; a login
 * before the proof texts a new one (the old one dies); `resend_otp` with the number does too;
 * `verify_otp` with the number and the code verifies it and starts the session; the code works
 * once; a verified account then logs in without a text.
 */
import t from 'tap';
import { TRANSPORTS, TransportClient } from '../mfa/transports.js';
import { otherThan, startPhoneServer } from './helpers.js';

const { server, gateway, nextCode, close } = await startPhoneServer({ 'enable-phone-verification': true });
t.teardown(close);
const PASSWORD = 'Phone-pass-1';

interface Auth {
  message: string;
  access_token?: string;
  should_show_mobile_otp_screen?: boolean;
  user?: { phone_number?: string; phone_number_verified?: boolean };
}

const phones = { rest: '+15558000001', graphql: '+15558000002', grpc: '+15558000003' } as const;

for (const kind of TRANSPORTS) {
  t.test(`a phone signup proves its number with a texted code over ${kind}`, async (t) => {
    const phone = phones[kind];
    const client = new TransportClient(kind, server);
    t.teardown(() => client.close());
    const signed = await client.ok<Auth>('signup', {
      phone_number: phone,
      password: PASSWORD,
      confirm_password: PASSWORD,
    });
    t.notOk(signed.access_token, 'no session before the number is proven');
    t.equal(signed.should_show_mobile_otp_screen, true, 'the client is asked for the code');
    t.equal(signed.message, 'Please check the OTP sent to your phone number');
    const first = await nextCode(phone);

    t.match(
      await client.call('verify_otp', { phone_number: phone, otp: otherThan(first) }),
      { ok: false, code: 'unauthenticated', message: 'invalid otp' },
      'a wrong code is refused',
    );

    const login = await client.ok<Auth>('login', { phone_number: phone, password: PASSWORD });
    t.notOk(login.access_token, 'a login before the proof gets no session');
    t.equal(login.should_show_mobile_otp_screen, true);
    const second = await nextCode(phone);
    if (second !== first)
      t.match(
        await client.call('verify_otp', { phone_number: phone, otp: first }),
        { ok: false, code: 'unauthenticated' },
        'the code of an earlier text died with the new one',
      );

    t.match(await client.ok('resend_otp', { phone_number: phone }), {
      message: 'A new verification code was sent by SMS',
    });
    const third = await nextCode(phone);
    const verified = await client.ok<Auth>('verify_otp', { phone_number: phone, otp: third });
    t.ok(verified.access_token, 'the texted code starts the session');
    t.equal(verified.message, 'Phone number verified successfully.');
    t.match(verified.user, { phone_number: phone, phone_number_verified: true });
    t.match(await client.call('verify_otp', { phone_number: phone, otp: third }), { ok: false }, 'the code works once');

    const texts = gateway.texts.filter((m) => m.to === phone).length;
    const again = await client.ok<Auth>('login', { phone_number: phone, password: PASSWORD });
    t.ok(again.access_token, 'a verified number logs in at once');
    t.equal(gateway.texts.filter((m) => m.to === phone).length, texts, 'without a text');
  });
}

t.test('Meta says phone verification is on', async (t) => {
  const meta = (await (await fetch(`${server.url}/v1/meta`)).json()) as Record<string, unknown>;
  t.equal(meta.is_phone_verification_enabled, true);
});
