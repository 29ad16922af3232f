/**
 * The `--smtp-*` flags against real SMTP servers: STARTTLS with authentication and the announced
 * local name, TLS certificate verification (refused for a self-signed certificate unless
 * `--smtp-skip-tls-verification`), a wrong password, and TLS from the first byte on port 465.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { admin, mailFlags, rest, signupInput } from './helpers.js';
import { startSmtpSink, type SinkOptions } from './smtp-sink.js';

// A self-signed certificate for 127.0.0.1, made by openssl for this run.
const dir = mkdtempSync(join(tmpdir(), 'latchkey-smtp-tls-'));
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
  ],
  { stdio: 'ignore' },
);
const tls = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
rmSync(dir, { recursive: true, force: true });
const auth = { user: 'mailer', pass: 'mail-secret' };

interface Entry {
  status: string;
  last_error?: string;
}

/** A server sending to a sink started with `sink`, one reset mail asked for; answers what became of it. */
async function scenario(t: Test, sink: SinkOptions, flags: Record<string, string | number | boolean>) {
  const smtp = await startSmtpSink(sink);
  const server = await startTestServer({ flags: { ...mailFlags(smtp), 'email-max-attempts': 1, ...flags } });
  t.teardown(async () => {
    await server.close();
    await smtp.close();
  });
  await rest(server, 'signup', signupInput('opts@example.com'));
  await rest(server, 'forgot_password', { email: 'opts@example.com' });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { entries } = (await rest<{ entries: Entry[] }>(server, 'admin/email_outbox', {}, admin)).body;
    if (entries[0] && entries[0].status !== 'pending') return { entry: entries[0], smtp };
    if (Date.now() > deadline) throw new Error('the mail was neither sent nor failed');
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('STARTTLS, authentication and the local name', async (t) => {
  const { entry, smtp } = await scenario(
    t,
    { tls, auth },
    {
      'smtp-username': auth.user,
      'smtp-password': auth.pass,
      'smtp-local-name': 'mailer.latchkey.test',
      'smtp-skip-tls-verification': true,
    },
  );
  t.equal(entry.status, 'sent');
  t.same(smtp.sessions, [{ secure: true, clientName: 'mailer.latchkey.test', user: 'mailer' }]);
});

t.test('a certificate that does not verify is refused unless told to skip verification', async (t) => {
  const { entry, smtp } = await scenario(t, { tls }, {});
  t.equal(entry.status, 'failed');
  t.match(entry.last_error, /certificate/i);
  t.equal(smtp.messages.length, 0);
});

t.test('a wrong password fails the mail', async (t) => {
  const { entry, smtp } = await scenario(
    t,
    { tls, auth },
    {
      'smtp-username': auth.user,
      'smtp-password': 'wrong',
      'smtp-skip-tls-verification': true,
    },
  );
  t.equal(entry.status, 'failed');
  t.match(entry.last_error, /auth|invalid/i);
  t.equal(smtp.messages.length, 0);
});

t.test('port 465 is TLS from the first byte', async (t) => {
  let probe;
  try {
    probe = await startSmtpSink({ port: 465, tls, secure: true });
  } catch (err) {
    t.comment(`port 465 cannot be listened on here: ${(err as Error).message}`);
    t.pass('skipped: no port 465');
    return;
  }
  await probe.close();
  const { entry, smtp } = await scenario(
    t,
    { port: 465, tls, secure: true },
    {
      'smtp-port': 465,
      'smtp-skip-tls-verification': true,
    },
  );
  t.equal(entry.status, 'sent');
  t.equal(smtp.sessions[0]?.secure, true);
});
