/**
 * The SMS outbox's admin operations against a started server and a Twilio-shaped gateway on
 * 127.0.0.1, over REST, GraphQL and gRPC: a text the gateway refuses is marked failed and listed
 * by `_sms_outbox` with the number masked and never the body or its code; `_retry_sms` queues it
 * again and the gateway gets it once, and its code still works; a non-admin gets the refusal
 * `_email_outbox` gives, an unknown id the 4xx `_retry_email` gives; a failed text whose code has
 * expired is not queued again (400 `failed_precondition`).
 */
import t from 'tap';
import { maskedNumber } from '../../../plugins/sms/operations.js';
import { TEST_ADMIN_SECRET } from '../../helpers/server.js';
import { rest } from '../email/helpers.js';
import { TRANSPORTS, TransportClient, type TransportKind } from '../mfa/transports.js';
import { startPhoneServer } from '../phone-verification/helpers.js';

// Two attempts, 100 ms apart (SMS_FLAGS): a refused text is failed within a second.
const { server, gateway, close } = await startPhoneServer({
  'enable-phone-verification': true,
  'sms-max-attempts': 2,
});
t.teardown(close);
const PASSWORD = 'Outbox-admin-1';
const ADMIN = { 'x-service-admin-secret': TEST_ADMIN_SECRET };

interface Entry {
  id: string;
  recipient: string;
  status: string;
  attempts: number;
  last_error?: string;
  created_at: number;
  sent_at?: number;
  expires_at?: number;
}
interface Listing {
  entries: Entry[];
  pagination: { total: number };
  sent: number;
  failed: number;
}

const phones: Record<TransportKind, string> = { rest: '+15558400011', graphql: '+15558400022', grpc: '+15558400033' };

async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const entryTo = async (admin: TransportClient, phone: string, status?: string): Promise<Entry | undefined> => {
  const listing = await admin.ok<Listing>('_sms_outbox', { ...(status ? { status } : {}), pagination: { limit: 100 } });
  return listing.entries.find((e) => e.recipient === maskedNumber(phone));
};

t.test('numbers are masked to their last digits', async (t) => {
  t.equal(maskedNumber('+15558400011'), '+*******0011', 'four digits of an eleven-digit number');
  t.equal(maskedNumber('+4915112345678'), '+*********5678');
  t.equal(maskedNumber('+298123456'), '+*******56', 'two digits of a number shorter than ten');
});

for (const kind of TRANSPORTS) {
  t.test(
    `a refused text is listed as failed without its code, and retried it arrives once, over ${kind}`,
    async (t) => {
      const admin = new TransportClient(kind, server, ADMIN);
      t.teardown(() => admin.close());
      const phone = phones[kind];
      gateway.failNext(2, 500);
      const signup = await rest(server, 'signup', {
        phone_number: phone,
        password: PASSWORD,
        confirm_password: PASSWORD,
      });
      t.equal(signup.status, 200);
      await until('the text to be marked failed', async () => (await entryTo(admin, phone, 'failed')) !== undefined);
      t.equal(gateway.texts.filter((m) => m.to === phone).length, 0, 'the gateway took nothing');

      const listing = await admin.ok<Listing>('_sms_outbox', { status: 'failed', pagination: { limit: 100 } });
      const entry = listing.entries.find((e) => e.recipient === maskedNumber(phone))!;
      t.match(entry, { status: 'failed', attempts: 2, last_error: /answered 500/ });
      t.equal(entry.recipient, maskedNumber(phone), 'the number masked');
      t.notOk('body' in entry, 'no body');
      t.ok(entry.expires_at! > entry.created_at, 'the end of use of its code');
      t.ok(entry.expires_at! - entry.created_at <= 600, 'ten minutes at most');
      t.ok(
        listing.entries.every((e) => e.status === 'failed'),
        'the status filter holds',
      );
      t.ok(listing.failed >= 1, 'the failed count');
      const listed = JSON.stringify(listing);
      t.notOk(listed.includes(phone.slice(1)), 'the full number appears nowhere');

      t.same(await admin.ok('_retry_sms', { id: entry.id }), { message: 'Text queued again' });
      const text = await gateway.next(phone);
      const code = /\b(\d{6})\b/.exec(text.body)![1]!;
      t.notOk(listed.includes(code), 'the listing held no code');
      const verified = await rest<{ access_token?: string }>(server, 'verify_otp', { phone_number: phone, otp: code });
      t.equal(verified.status, 200, 'the retried code works');
      t.ok(verified.body.access_token);

      await until('the row to be marked sent', async () => (await entryTo(admin, phone))?.status === 'sent');
      const sent = (await entryTo(admin, phone))!;
      t.match(sent, { id: entry.id, status: 'sent', attempts: 1 });
      t.ok(sent.sent_at! >= sent.created_at);
      // Longer than the worker's one-second poll: a second sending would show by now.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      t.equal(gateway.texts.filter((m) => m.to === phone).length, 1, 'delivered once');
      t.match(
        await admin.call('_retry_sms', { id: entry.id }),
        { ok: false, code: 'not_found', message: 'no failed text with this id' },
        'only failed texts',
      );
    },
  );

  t.test(`a non-admin gets the refusal _email_outbox gives, over ${kind}`, async (t) => {
    const user = await rest<{ access_token: string }>(server, 'signup', {
      email: `outbox-${kind}@example.com`,
      password: PASSWORD,
      confirm_password: PASSWORD,
    });
    t.equal(user.status, 200);
    const anonymous = new TransportClient(kind, server);
    const signedIn = new TransportClient(kind, server, { authorization: `Bearer ${user.body.access_token}` });
    t.teardown(() => {
      anonymous.close();
      signedIn.close();
    });
    for (const [who, client] of [
      ['no credentials', anonymous],
      ["a user's token", signedIn],
    ] as const) {
      const email = await client.call('_email_outbox', {});
      t.match(email, { ok: false }, `${who}: _email_outbox refuses`);
      t.same(await client.call('_sms_outbox', {}), email, `${who}: _sms_outbox refuses alike`);
      const retryEmail = await client.call('_retry_email', { id: 'any' });
      t.match(retryEmail, { ok: false });
      t.same(await client.call('_retry_sms', { id: 'any' }), retryEmail, `${who}: _retry_sms refuses alike`);
    }
  });

  t.test(`an unknown id gets the 4xx _retry_email gives, over ${kind}`, async (t) => {
    const admin = new TransportClient(kind, server, ADMIN);
    t.teardown(() => admin.close());
    const email = await admin.call('_retry_email', { id: 'no-such-id' });
    const sms = await admin.call('_retry_sms', { id: 'no-such-id' });
    t.match(email, { ok: false, code: 'not_found' });
    t.match(sms, { ok: false, code: 'not_found', message: 'no failed text with this id' });
  });
}

t.test('over REST the refusals carry the same statuses as the email ones', async (t) => {
  const pairs = [
    ['admin/email_outbox', 'admin/sms_outbox', {}, {}],
    ['admin/retry_email', 'admin/retry_sms', { id: 'no-such-id' }, ADMIN],
    ['admin/email_outbox', 'admin/sms_outbox', { status: 'lost' }, ADMIN],
  ] as const;
  for (const [email, sms, input, headers] of pairs) {
    const a = await rest(server, email, input, headers);
    const b = await rest(server, sms, input, headers);
    t.ok(a.status >= 400 && a.status < 500, `${email}: ${a.status}`);
    t.equal(b.status, a.status, `${sms} answers ${a.status} as ${email} does`);
    t.equal(b.body.code, a.body.code);
  }
});

t.test('a failed text whose code has expired is not queued again', async (t) => {
  const admin = new TransportClient('rest', server, ADMIN);
  t.teardown(() => admin.close());
  const phone = '+15558400044';
  const expiresAt = Date.now() + 1_500;
  gateway.failNext(2, 500);
  await server.kernel.service('sms').send(phone, '123456 is your code.', { expiresAt });
  await until('the text to be marked failed', async () => (await entryTo(admin, phone, 'failed')) !== undefined);
  const entry = (await entryTo(admin, phone, 'failed'))!;
  t.equal(entry.expires_at, Math.floor(expiresAt / 1000), 'listed with the end of use its sender stated');
  await until('the code to expire', async () => Date.now() > expiresAt + 50, 5_000);

  const refused = await rest<{ code: string; message: string }>(server, 'admin/retry_sms', { id: entry.id }, ADMIN);
  t.equal(refused.status, 400);
  t.equal(refused.body.code, 'failed_precondition');
  t.match(refused.body.message, /expired .*ask for a new code/);
  t.match(await entryTo(admin, phone), { id: entry.id, status: 'failed', attempts: 2 }, 'the row is left as it was');
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  t.equal(gateway.texts.filter((m) => m.to === phone).length, 0, 'nothing texted');
});
