/**
 * The SMS channel against a Twilio-shaped gateway on 127.0.0.1: what it posts (path, Basic
 * credentials, form), a refusing gateway's text queued and sent by a retry (the refused attempt
 * counted), the guarded client refusing a loopback gateway that --outbound-allow-cidrs does not
 * list (the text stays queued, the gateway sees nothing), the per-number and per-IP limits and
 * their flags, startup refusals,
 * and an SMS one-time code as a second factor end to end.
 */
import t from 'tap';
import { Config, type FlagValue } from '../../../core/config.js';
import { ServiceError } from '../../../core/errors.js';
import { SmsOutboxEntity, type SmsOutboxRow } from '../../../plugins/sms/entities.js';
import { smsPlugin } from '../../../plugins/sms/index.js';
import { TransportClient } from '../mfa/transports.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { startSmsGateway } from './gateway-server.js';

const gateway = await startSmsGateway();
t.teardown(() => gateway.close());

const SMS_FLAGS = {
  'sms-account-sid': 'AC0123456789',
  'sms-api-key': 'SK-key',
  'sms-api-secret': 'sms-secret',
  'sms-sender': '+15550001111',
  'sms-gateway-url': gateway.url,
  'sms-retry-delay-ms': 100,
};

/** The outbox rows of texts to `to` on `of`'s database, once the worker has had an attempt at each. */
async function attemptedRows(of: TestServer, to: string): Promise<SmsOutboxRow[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = (await of.kernel.storage
      .em()
      .find(SmsOutboxEntity, { recipient: to } as never)) as unknown as SmsOutboxRow[];
    if (rows.length > 0 && rows.every((r) => Number(r.attempts) > 0 && r.leaseUntil === null)) return rows;
    if (Date.now() > deadline) throw new Error(`no finished attempt for ${to}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const server: TestServer = await startTestServer({
  flags: { ...SMS_FLAGS, 'outbound-allow-cidrs': '127.0.0.1/32', 'enable-mobile-basic-authentication': true },
});
t.teardown(() => server.close());
const sms = server.kernel.service('sms');

t.test('a text is posted to the Messages API with Basic credentials and the form fields', async (t) => {
  t.equal(sms.configured, true);
  await sms.send('+15551234567', 'hello there');
  const text = await gateway.next('+15551234567');
  t.same(text, {
    path: '/2010-04-01/Accounts/AC0123456789/Messages.json',
    user: 'SK-key',
    password: 'sms-secret',
    to: '+15551234567',
    from: '+15550001111',
    body: 'hello there',
  });
});

t.test(
  'a refusing gateway: the text is queued at once and sent by a retry; a number not in E.164 is a 400',
  async (t) => {
    gateway.failNext(1, 500);
    await sms.send('+15551230001', 'refused once');
    const text = await gateway.next('+15551230001');
    t.equal(text.body, 'refused once', 'sent by the retry');
    const rows = await attemptedRows(server, '+15551230001');
    t.equal(rows.length, 1);
    t.match(rows[0], { status: 'sent', lastError: null });
    t.equal(Number(rows[0]!.attempts), 2, 'the refused attempt and the one that went through');
    await t.rejects(sms.send('5551234567', 'x'), { code: 'invalid_argument' });
    await t.rejects(sms.send('+1555<script>', 'x'), { code: 'invalid_argument' });
  },
);

t.test('the guarded client refuses a loopback gateway the allow list does not name', async (t) => {
  const closed = await startTestServer({ flags: SMS_FLAGS });
  t.teardown(() => closed.close());
  const before = gateway.requests;
  await closed.kernel.service('sms').send('+15551230002', 'x');
  const [row] = await attemptedRows(closed, '+15551230002');
  t.equal(row!.status, 'pending', 'kept for a retry');
  t.match(row!.lastError, /could not be reached/, 'the refused attempt says why');
  t.equal(gateway.requests, before, 'the gateway saw no request');
});

t.test('startup refuses a partial gateway configuration and a bad gateway URL', async (t) => {
  const check = (flags: Record<string, FlagValue>) => smsPlugin.validateConfig?.(new Config(flags));
  t.match(check({ 'sms-account-sid': 'AC1' }), /needs --sms-api-key, --sms-api-secret, --sms-sender/);
  t.match(check({ ...SMS_FLAGS, 'sms-gateway-url': 'ftp://x' }), /absolute http\(s\) URL/);
  t.match(check({ ...SMS_FLAGS, 'sms-account-sid': '../x' }), /letters and digits/);
  t.equal(check(SMS_FLAGS), undefined);
  t.equal(check({}), undefined, 'no SMS at all is a valid configuration');
  t.match(check({ ...SMS_FLAGS, 'sms-max-attempts': 0 }), /--sms-max-attempts must be a whole number/);
  t.match(check({ ...SMS_FLAGS, 'sms-retry-delay-ms': 1.5 }), /--sms-retry-delay-ms must be a whole number/);
  t.match(check({ ...SMS_FLAGS, 'sms-limit-per-number': 0 }), /--sms-limit-per-number must be a whole number/);
  t.match(check({ ...SMS_FLAGS, 'sms-limit-per-ip': -3 }), /--sms-limit-per-ip must be a whole number/);
});

t.test('an SMS code as the second factor: setup, then a password login withheld until the code', async (t) => {
  const phone = '+15557654321';
  const password = 'Sms-pass-1';
  const anon = new TransportClient('rest', server);
  t.teardown(() => anon.close());
  const signedUp = await anon.ok<{ access_token: string }>('signup', {
    phone_number: phone,
    password,
    confirm_password: password,
  });
  const c = new TransportClient('rest', server, { authorization: `Bearer ${signedUp.access_token}` });
  t.teardown(() => c.close());
  t.match(await c.ok('sms_otp_mfa_setup', {}), { message: /sent/ });
  const setup = (await gateway.next(phone)).body.match(/\b(\d{6})\b/)?.[1] ?? '';
  const enrolled = await c.ok<{ user: { enrolled_mfa_methods: string[] } }>('verify_otp', { otp: setup });
  t.same(enrolled.user.enrolled_mfa_methods, ['sms_otp']);

  const asked = await anon.ok<{ access_token?: string; should_show_mobile_otp_screen?: boolean }>('login', {
    phone_number: phone,
    password,
  });
  t.notOk(asked.access_token, 'no token before the code');
  t.equal(asked.should_show_mobile_otp_screen, true);
  const code = (await gateway.next(phone)).body.match(/\b(\d{6})\b/)?.[1] ?? '';
  const done = await anon.ok<{ access_token?: string }>('verify_otp', { otp: code, phone_number: phone });
  t.ok(done.access_token, 'the code completes the login');
});

t.test('texts to one number are limited per 15-minute window (429)', async (t) => {
  const ctx = { ip: '203.0.113.9' } as Parameters<typeof sms.checkSendLimit>[0];
  const outcomes: string[] = [];
  for (let i = 0; i < 7; i++) {
    outcomes.push(
      await sms.checkSendLimit(ctx, '+15550009999').then(
        () => 'ok',
        (e: ServiceError) => e.code,
      ),
    );
  }
  t.same(outcomes, ['ok', 'ok', 'ok', 'ok', 'ok', 'resource_exhausted', 'resource_exhausted']);
});

t.test('--sms-limit-per-number and --sms-limit-per-ip set the 15-minute budgets', async (t) => {
  const limited = await startTestServer({
    flags: { ...SMS_FLAGS, 'outbound-allow-cidrs': '127.0.0.1/32', 'sms-limit-per-number': 2, 'sms-limit-per-ip': 3 },
  });
  t.teardown(() => limited.close());
  const check = limited.kernel.service('sms').checkSendLimit;
  const outcome = (ip: string, to: string) =>
    check({ ip } as Parameters<typeof check>[0], to).then(
      () => 'ok',
      (e: ServiceError) => e.message,
    );
  const byNumber = [];
  for (let i = 0; i < 3; i++) byNumber.push(await outcome(`198.51.100.${i + 1}`, '+15550007777'));
  t.same(byNumber.slice(0, 2), ['ok', 'ok']);
  t.match(byNumber[2], /for this number/, 'the third text to one number within the window is refused');
  const byIp = [];
  for (let i = 0; i < 4; i++) byIp.push(await outcome('198.51.100.50', `+1555000800${i}`));
  t.same(byIp.slice(0, 3), ['ok', 'ok', 'ok']);
  t.match(byIp[3], /from this address/, 'the fourth text from one address within the window is refused');
});
