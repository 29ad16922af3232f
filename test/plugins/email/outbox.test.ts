/**
 * The durable outbox against real SMTP servers: a server that refuses the first two attempts
 * still gets the mail exactly once; a mail that keeps failing is marked failed, listed for
 * admins and can be queued again; a server stopped with a mail queued sends it after a restart
 * on the same database.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../../helpers/ports.js';
import { startTestServer } from '../../helpers/server.js';
import { admin, mailFlags, rest, signupInput } from './helpers.js';
import { startSmtpSink } from './smtp-sink.js';

interface Entry {
  id: string;
  recipient: string;
  status: string;
  attempts: number;
  last_error?: string;
  event_name: string;
}
const outbox = async (server: { url: string }, status?: string) =>
  (
    await rest<{ entries: Entry[]; failed: number; sent: number }>(
      server,
      'admin/email_outbox',
      status ? { status } : {},
      admin,
    )
  ).body;

const until = async (what: () => Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

t.test('a server that refuses the first two attempts gets the mail exactly once', async (t) => {
  const sink = await startSmtpSink();
  const server = await startTestServer({ flags: mailFlags(sink) });
  t.teardown(async () => {
    await server.close();
    await sink.close();
  });
  await rest(server, 'signup', signupInput('once@example.com'));
  sink.refuseNext(2);
  t.equal((await rest(server, 'forgot_password', { email: 'once@example.com' })).status, 200);
  const mail = await sink.next('once@example.com');
  t.match(mail.subject, /Reset your/);
  t.equal(sink.refused, 2, 'two attempts were refused first');
  await until(async () => (await outbox(server, 'sent')).entries.length === 1);
  const [entry] = (await outbox(server, 'sent')).entries;
  t.match(entry, { recipient: 'once@example.com', status: 'sent', attempts: 3, event_name: 'forgot_password' });
  await new Promise((r) => setTimeout(r, 500));
  t.equal(sink.messages.filter((m) => m.to === 'once@example.com').length, 1, 'delivered once');
});

t.test('a mail that keeps failing is marked failed, visible to admins, and can be queued again', async (t) => {
  const sink = await startSmtpSink();
  const server = await startTestServer({ flags: { ...mailFlags(sink), 'email-max-attempts': 2 } });
  t.teardown(async () => {
    await server.close();
    await sink.close();
  });
  await rest(server, 'signup', signupInput('fails@example.com'));
  sink.refuseNext(2);
  await rest(server, 'forgot_password', { email: 'fails@example.com' });
  await until(async () => (await outbox(server, 'failed')).entries.length === 1);
  const listed = await outbox(server, 'failed');
  t.match(listed.entries[0], {
    recipient: 'fails@example.com',
    status: 'failed',
    attempts: 2,
    last_error: /try again later/,
  });
  t.equal(listed.failed, 1, 'counted');
  t.equal(sink.messages.length, 0);

  const retried = await rest(server, 'admin/retry_email', { id: listed.entries[0].id }, admin);
  t.equal(retried.status, 200);
  await sink.next('fails@example.com');
  t.equal(
    (await rest(server, 'admin/retry_email', { id: listed.entries[0].id }, admin)).status,
    404,
    'only failed mail',
  );
  t.equal((await rest(server, 'admin/retry_email', { id: 'nope' }, admin)).status, 404);
  t.equal((await rest(server, 'admin/email_outbox', { status: 'lost' }, admin)).status, 400);
  t.equal((await rest(server, 'admin/email_outbox', {})).status, 401, 'admins only');
});

t.test('a server stopped with a mail queued sends it after a restart on the same database', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-outbox-'));
  const database = { 'database-url': join(dir, 'shared.db') };
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // First run: nothing listens on the SMTP port, so the mail stays queued.
  const down = await freePort();
  const first = await startTestServer({
    flags: { ...database, ...mailFlags({ port: down }), 'email-max-attempts': 50 },
  });
  await rest(first, 'signup', signupInput('later@example.com'));
  await rest(first, 'forgot_password', { email: 'later@example.com' });
  await until(async () => (await outbox(first, 'pending')).entries.some((e) => e.attempts >= 1));
  await first.close();

  const sink = await startSmtpSink();
  const second = await startTestServer({ flags: { ...database, ...mailFlags(sink) } });
  t.teardown(async () => {
    await second.close();
    await sink.close();
  });
  const mail = await sink.next('later@example.com');
  t.match(mail.subject, /Reset your/);
  await until(async () => (await outbox(second, 'sent')).entries.length === 1);
  await new Promise((r) => setTimeout(r, 500));
  t.equal(sink.messages.length, 1, 'sent once');
});
