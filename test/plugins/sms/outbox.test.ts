/**
 * Texts go through the durable SMS outbox (plugins/sms/outbox.ts), on every database reachable
 * here: a phone signup that texts its verification code answers at once while the gateway takes
 * 5 s, and the code still arrives and works; with the gateway down the signup succeeds and the
 * text arrives once the gateway is back; a text queued when the server stops is delivered once by
 * the next server on the same database. The gateway is a real local Twilio-shaped server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { FlagValue } from '../../../core/config.js';
import { SmsOutboxEntity, type SmsOutboxRow } from '../../../plugins/sms/entities.js';
import { databaseTargets, type DbTarget } from '../../helpers/databases.js';
import { freePort } from '../../helpers/ports.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { rest } from '../email/helpers.js';
import { SMS_FLAGS } from '../phone-verification/helpers.js';
import { startSmsGateway } from './gateway-server.js';

const PASSWORD = 'Outbox-pass-1';
const codeOf = (body: string): string => /\b(\d{6})\b/.exec(body)![1]!;

async function serverOn(target: DbTarget, databaseUrl: string, gatewayPort: number): Promise<TestServer> {
  const flags: Record<string, FlagValue> = {
    ...SMS_FLAGS,
    ...target.flags,
    'database-url': databaseUrl,
    // Codes live in the memory store: the database's survives a restart, as the outbox does.
    'memory-store': 'database',
    'sms-gateway-url': `http://127.0.0.1:${gatewayPort}`,
    'sms-retry-delay-ms': 200,
    'enable-phone-verification': true,
  };
  return startTestServer({ flags });
}

const signup = (server: TestServer, phone_number: string) =>
  rest<{ should_show_mobile_otp_screen?: boolean }>(server, 'signup', {
    phone_number,
    password: PASSWORD,
    confirm_password: PASSWORD,
  });

async function rowsTo(server: TestServer, phone: string): Promise<SmsOutboxRow[]> {
  const rows = await server.kernel.storage.em().find(SmsOutboxEntity, { recipient: phone } as never);
  return rows as unknown as SmsOutboxRow[];
}

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const target of await databaseTargets({ sqlOnly: true })) {
  t.test(target.name, async (t) => {
    // SQLite's file is the test's own, so that a second server opens the same database.
    const dir = await mkdtemp(join(tmpdir(), 'latchkey-sms-outbox-'));
    const databaseUrl = target.name === 'sqlite' ? join(dir, 'outbox.db') : target.flags['database-url']!;
    t.teardown(async () => {
      await target.dispose();
      await rm(dir, { recursive: true, force: true });
    });

    t.test('a gateway taking 5 s: the signup answers at once, the code arrives and works', async (t) => {
      const gateway = await startSmsGateway({ delayMs: 5_000 });
      const server = await serverOn(target, databaseUrl, Number(new URL(gateway.url).port));
      t.teardown(async () => {
        await server.close();
        await gateway.close();
      });
      const phone = '+15558200001';
      const started = performance.now();
      const answer = await signup(server, phone);
      const tookMs = performance.now() - started;
      t.equal(answer.status, 200);
      t.equal(answer.body.should_show_mobile_otp_screen, true);
      t.ok(tookMs < 2_500, `answered in ${Math.round(tookMs)} ms, not after the gateway's 5 s`);
      t.equal(gateway.texts.length, 0, 'the gateway has not answered yet when the signup has');
      const text = await gateway.next(phone);
      const verified = await rest<{ access_token?: string }>(server, 'verify_otp', {
        phone_number: phone,
        otp: codeOf(text.body),
      });
      t.equal(verified.status, 200);
      t.ok(verified.body.access_token, 'the texted code completes the sign-in');
      await until('the row to be marked sent', async () => (await rowsTo(server, phone))[0]?.status === 'sent');
      const [row] = await rowsTo(server, phone);
      t.equal(Number(row!.attempts), 1, 'one attempt');
      t.notOk(row!.body.includes(codeOf(text.body)), 'the stored body is sealed, not the code');
    });

    t.test('the gateway down: the signup succeeds, the text arrives once it is back', async (t) => {
      const port = await freePort();
      const server = await serverOn(target, databaseUrl, port);
      t.teardown(() => server.close());
      const phone = '+15558200002';
      const answer = await signup(server, phone);
      t.equal(answer.status, 200, 'no 503 for a gateway nobody answers at');
      t.equal(answer.body.should_show_mobile_otp_screen, true);
      await until('a failed attempt on the row', async () => {
        const [row] = await rowsTo(server, phone);
        return row !== undefined && Number(row.attempts) >= 1 && row.leaseUntil === null;
      });
      const [waiting] = await rowsTo(server, phone);
      t.equal(waiting!.status, 'pending', 'still queued');
      t.match(waiting!.lastError, /could not be reached/, 'the failed attempt says why');
      const gateway = await startSmsGateway({ port });
      t.teardown(() => gateway.close());
      const text = await gateway.next(phone);
      const verified = await rest(server, 'verify_otp', { phone_number: phone, otp: codeOf(text.body) });
      t.equal(verified.status, 200, 'the late code still works');
      await until('the row to be marked sent', async () => (await rowsTo(server, phone))[0]?.status === 'sent');
      t.equal(gateway.texts.filter((m) => m.to === phone).length, 1, 'texted once');
    });

    t.test('a text queued when the server stops is delivered once by the next server', async (t) => {
      const port = await freePort();
      const first = await serverOn(target, databaseUrl, port);
      const phone = '+15558200003';
      t.equal((await signup(first, phone)).status, 200);
      await until('a failed attempt on the row', async () => {
        const [row] = await rowsTo(first, phone);
        return row !== undefined && Number(row.attempts) >= 1 && row.leaseUntil === null;
      });
      await first.close();
      const gateway = await startSmsGateway({ port });
      t.teardown(() => gateway.close());
      t.equal(gateway.requests, 0, 'nothing sent while no server runs');
      const second = await serverOn(target, databaseUrl, port);
      t.teardown(() => second.close());
      const text = await gateway.next(phone);
      t.equal(text.to, phone);
      await until('the row to be marked sent', async () => (await rowsTo(second, phone))[0]?.status === 'sent');
      // Longer than the worker's poll: a second sending would show by now.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      t.equal(gateway.texts.filter((m) => m.to === phone).length, 1, 'delivered once');
      const verified = await rest(second, 'verify_otp', { phone_number: phone, otp: codeOf(text.body) });
      t.equal(verified.status, 200, 'the code issued before the restart works after it');
    });
  });
}
