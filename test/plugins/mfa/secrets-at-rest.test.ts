/**
 * Secrets at rest (`--encryption-key` encrypts TOTP secrets and OTP digests): with
 * the memory store in the database too, the database file holds neither the TOTP secret, nor a
 * recovery code, nor a live email code in plain text.
 */
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { databaseText } from '../../helpers/database-text.js';
import { startMailServer } from '../email/helpers.js';
import { TransportClient } from './transports.js';

t.test('the database file holds no TOTP secret, recovery code or OTP in plain text', async (t) => {
  const mail = await startMailServer({ 'memory-store': 'database' });
  t.teardown(() => mail.close());
  const { server, sink } = mail;
  const c = new TransportClient('rest', server);
  t.teardown(() => c.close());
  const email = 'at-rest@example.com';
  const signedUp = await c.ok<{ access_token: string }>('signup', {
    email,
    password: 'Rest-pass-1',
    confirm_password: 'Rest-pass-1',
  });
  const me = new TransportClient('rest', server, { authorization: `Bearer ${signedUp.access_token}` });
  t.teardown(() => me.close());
  const totp = await me.ok<{ authenticator_secret: string; authenticator_recovery_codes: string[] }>(
    'totp_mfa_setup',
    {},
  );
  await me.ok('email_otp_mfa_setup', {});
  const code = (await sink.next(email)).text.match(/\b(\d{6})\b/)![1];

  const file = server.kernel.config.string('database-url')!;
  const raw = Buffer.concat(
    await Promise.all([file, `${file}-wal`].map((f) => readFile(f).catch(() => Buffer.alloc(0)))),
  ).toString('latin1');
  const text = await databaseText(server.kernel);
  t.ok(text.includes('latchkey_mfa_factors') && text.includes('latchkey_memory'), 'the tables were read');
  t.match(text, /"secret":"v1\./, 'the TOTP secret is stored sealed');
  for (const where of [raw, text]) {
    t.notOk(where.includes(totp.authenticator_secret), 'no TOTP secret');
    for (const r of totp.authenticator_recovery_codes) {
      t.notOk(where.includes(r) || where.includes(r.replace('-', '')), `no recovery code ${r}`);
    }
  }
  // Every table, the mail outbox included (its bodies are sealed).
  const stores = await databaseText(server.kernel);
  t.notMatch(stores, new RegExp(`(?<![0-9])${code}(?![0-9])`), 'no live email code');
  t.ok((await me.ok<{ message: string }>('verify_otp', { otp: code })).message, 'the code was live all along');
});
