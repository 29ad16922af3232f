/**
 * The SMS outbox does not text a code past its end of use (plugins/sms/outbox.ts, `expires_at`),
 * against started servers and the local Twilio-shaped gateway: a text the gateway keeps refusing
 * is retried only while its code works, then marked failed with `CODE_EXPIRED` and counted, and
 * the gateway gets nothing at or after the expiry; a retry that would come after the expiry (a
 * backoff longer than the code's life, here a real verification code's ten minutes) is not
 * scheduled, the text fails at once; a text found due after its code expired (the server was
 * down) is failed without an attempt at the gateway; a text without `expires_at` is retried as
 * before. Short lives come from the sender's `expiresAt`, as the sms service takes it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { FlagValue } from '../../../core/config.js';
import { SmsOutboxEntity, type SmsOutboxRow } from '../../../plugins/sms/entities.js';
import { CODE_EXPIRED } from '../../../plugins/sms/outbox.js';
import { freePort } from '../../helpers/ports.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { rest } from '../email/helpers.js';
import { metricsText, SMS_FLAGS, startPhoneServer } from '../phone-verification/helpers.js';
import { startSmsGateway, type SmsGateway } from './gateway-server.js';

const PASSWORD = 'Expiry-pass-1';

async function rowTo(server: TestServer, phone: string): Promise<SmsOutboxRow> {
  const rows = (await server.kernel.storage
    .em()
    .find(SmsOutboxEntity, { recipient: phone } as never)) as unknown as SmsOutboxRow[];
  if (rows.length !== 1) throw new Error(`${rows.length} rows to ${phone}`);
  return rows[0]!;
}

async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const arrivalsTo = (gateway: SmsGateway, phone: string) => gateway.arrivals.filter((a) => a.to === phone);

async function metric(server: TestServer, reason: string): Promise<number> {
  const found = new RegExp(`^latchkey_sms_delivery_failures_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(
    await metricsText(server),
  );
  return Number(found?.[1] ?? 0);
}

t.test('a text the gateway keeps refusing is retried while its code works, never after', async (t) => {
  // Attempts enough for minutes: only the code's end of use stops these retries.
  const { server, gateway, close } = await startPhoneServer({ 'sms-max-attempts': 50 });
  t.teardown(close);
  const phone = '+15558500001';
  gateway.failNext(1_000_000, 500);
  // Retries are due 100 ms, then 200 ms after a refusal and looked for every second: the second
  // attempt leaves about a second in, and the next look, about two seconds in, finds the code dead.
  const expiresAt = Date.now() + 1_500;
  await server.kernel.service('sms').send(phone, '123456 is your code.', { expiresAt });
  await until('the text to be given up', async () => (await rowTo(server, phone)).status === 'failed');

  const row = await rowTo(server, phone);
  t.equal(row.lastError, CODE_EXPIRED, 'failed for its code, not for the last refusal');
  t.equal(row.leaseUntil, null, 'nobody holds it');
  const reached = arrivalsTo(gateway, phone);
  t.ok(reached.length >= 1, `the gateway refused it ${reached.length} times while the code worked`);
  t.ok(
    reached.every((a) => a.at < expiresAt),
    'every request reached the gateway before the code expired',
  );
  t.equal(Number(row.attempts), reached.length, 'each counted attempt reached the gateway; the give-up is none');
  t.equal(gateway.texts.length, 0, 'the gateway took nothing');

  await until('the code to be dead for longer than a look of the worker', async () => Date.now() > expiresAt + 1_500);
  t.equal(arrivalsTo(gateway, phone).length, reached.length, 'nothing reached the gateway after the expiry');
  const after = await rowTo(server, phone);
  t.match(after, { status: 'failed', lastError: CODE_EXPIRED }, 'the row is left as it was');
  t.equal(Number(after.attempts), reached.length);
  t.same(server.kernel.service('sms').stats(), { sent: 0, retried: reached.length, failed: 1 }, 'counted once');
  t.equal(await metric(server, 'failed'), 1, 'the failed metric, as a text given up after its last attempt');
  t.equal(await metric(server, 'refused'), reached.length, 'each refusal counted, nothing more');
});

t.test('a backoff longer than the code lives: no retry after the expiry, the text fails at once', async (t) => {
  // Eleven minutes before a first retry: past the ten minutes of a phone verification code.
  const { server, gateway, close } = await startPhoneServer({
    'enable-phone-verification': true,
    'sms-max-attempts': 20,
    'sms-retry-delay-ms': 11 * 60_000,
  });
  t.teardown(close);

  const phone = '+15558500002';
  gateway.failNext(1, 503);
  const signup = await rest(server, 'signup', { phone_number: phone, password: PASSWORD, confirm_password: PASSWORD });
  t.equal(signup.status, 200);
  await until('the text to be given up', async () => (await rowTo(server, phone)).status === 'failed');
  const row = await rowTo(server, phone);
  t.match(row, { status: 'failed', lastError: CODE_EXPIRED, leaseUntil: null });
  t.equal(Number(row.attempts), 1, 'one attempt, no retry scheduled');
  t.ok(Number(row.expiresAt) > Date.now(), 'given up before the code expired: the retry would come after');
  t.equal(arrivalsTo(gateway, phone).length, 1, 'the gateway saw the one refused attempt');
  t.equal(await metric(server, 'failed'), 1);
  t.same(server.kernel.service('sms').stats(), { sent: 0, retried: 0, failed: 1 });

  // The code still works, so an admin may queue the text again, and it arrives.
  const retried = await rest(
    server,
    'admin/retry_sms',
    { id: row.id },
    { 'x-service-admin-secret': 'test-admin-secret' },
  );
  t.equal(retried.status, 200);
  const code = /\b(\d{6})\b/.exec((await gateway.next(phone)).body)![1]!;
  const verified = await rest(server, 'verify_otp', { phone_number: phone, otp: code });
  t.equal(verified.status, 200, 'the retried code works');
  await until('the row to be marked sent', async () => (await rowTo(server, phone)).status === 'sent');

  // Without an end of use the same backoff is waited out, as before.
  const plain = '+15558500003';
  gateway.failNext(1, 503);
  await server.kernel.service('sms').send(plain, 'Your number is on file.');
  await until('the refusal to be written', async () => {
    const r = await rowTo(server, plain);
    return Number(r.attempts) === 1 && r.leaseUntil === null;
  });
  const waiting = await rowTo(server, plain);
  t.match(waiting, { status: 'pending', lastError: /answered 503/, expiresAt: null });
  t.ok(Number(waiting.nextAttemptAt) - Date.now() > 10 * 60_000, 'its retry is eleven minutes off');
  t.equal(await metric(server, 'failed'), 1, 'not given up');
});

t.test('a text found due after its code expired is failed without an attempt', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-sms-expiry-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const port = await freePort();
  const flags: Record<string, FlagValue> = {
    ...SMS_FLAGS,
    // Two servers in turn on one database: the first is stopped while the text waits.
    'database-url': join(dir, 'expiry.db'),
    'sms-gateway-url': `http://127.0.0.1:${port}`,
    'sms-max-attempts': 20,
  };
  const phone = '+15558500004';
  const first = await startTestServer({ flags });
  const expiresAt = Date.now() + 1_500;
  // Nobody answers at the gateway's port: the first attempt fails, a retry is due 100 ms later.
  await first.kernel.service('sms').send(phone, '654321 is your code.', { expiresAt });
  await until('a failed attempt on the row', async () => {
    const r = await rowTo(first, phone);
    return Number(r.attempts) >= 1 && r.leaseUntil === null;
  });
  await first.close();
  await until('the code to expire', async () => Date.now() > expiresAt + 100, 5_000);

  const gateway = await startSmsGateway({ port });
  t.teardown(() => gateway.close());
  const second = await startTestServer({ flags });
  t.teardown(() => second.close());
  await until('the text to be given up', async () => (await rowTo(second, phone)).status === 'failed');
  const row = await rowTo(second, phone);
  const attempts = Number(row.attempts);
  t.match(row, { status: 'failed', lastError: CODE_EXPIRED, leaseUntil: null });
  t.ok(attempts >= 1, 'the attempts of the first server stay counted');
  await sleep(1_500);
  t.equal(gateway.requests, 0, 'the gateway never received the dead code');
  t.equal(Number((await rowTo(second, phone)).attempts), attempts, 'the give-up is no attempt');
  t.same(second.kernel.service('sms').stats(), { sent: 0, retried: 0, failed: 1 });
  t.equal(await metric(second, 'failed'), 1, 'counted as a text given up');
});

t.test('a text without an end of use is retried as before', async (t) => {
  const { server, gateway, close } = await startPhoneServer({ 'sms-max-attempts': 4 });
  t.teardown(close);
  const phone = '+15558500005';
  gateway.failNext(2, 500);
  await server.kernel.service('sms').send(phone, 'Your number is on file.');
  const text = await gateway.next(phone);
  t.equal(text.body, 'Your number is on file.');
  await until('the row to be marked sent', async () => (await rowTo(server, phone)).status === 'sent');
  const row = await rowTo(server, phone);
  t.match(row, { status: 'sent', lastError: null, expiresAt: null });
  t.equal(Number(row.attempts), 3, 'two refusals, then taken');
  t.equal(arrivalsTo(gateway, phone).length, 3);

  const failing = '+15558500006';
  gateway.failNext(4, 500);
  await server.kernel.service('sms').send(failing, 'Your number is on file.');
  await until('the text to be given up', async () => (await rowTo(server, failing)).status === 'failed');
  const given = await rowTo(server, failing);
  t.equal(given.lastError, 'the SMS gateway answered 500', 'the last refusal, as before');
  t.equal(Number(given.attempts), 4);
  t.equal(arrivalsTo(gateway, failing).length, 4, 'every attempt reached the gateway');
});
