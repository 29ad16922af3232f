/**
 * Two outbox workers on one database (two nodes) each claim rows with the conditional lease
 * update, on every SQL database reachable here: every queued mail reaches the SMTP server
 * exactly once; a row a dead node held is sent once its lease runs out.
 */
import t from 'tap';
import { databaseTargets } from '../../helpers/databases.js';
import { bootTestKernel } from '../../helpers/kernel.js';
import { Config } from '../../../core/config.js';
import { emailPlugin } from '../../../plugins/email/index.js';
import { keysPlugin } from '../../../plugins/keys/index.js';

/** The email plugin seals outbox bodies with the keys service. */
const KEYS = { 'jwt-type': 'HS256', 'jwt-secret': 'claims-test-jwt-secret-0123456789abcdef' };
import { MailOutboxEntity } from '../../../plugins/email/entities.js';
import { createOutbox } from '../../../plugins/email/outbox.js';
import { createMailTransport } from '../../../plugins/email/transport.js';
import { startSmtpSink } from './smtp-sink.js';

const MAILS = 30;

for (const target of await databaseTargets({ sqlOnly: true })) {
  t.test(`two workers, one table (${target.name})`, async (t) => {
    const sink = await startSmtpSink();
    const tk = await bootTestKernel({ plugins: [keysPlugin, emailPlugin], flags: KEYS, database: target });
    t.teardown(async () => {
      await tk.close();
      await target.dispose();
      await sink.close();
    });
    const config = new Config({ 'smtp-host': '127.0.0.1', 'smtp-port': sink.port, url: 'http://localhost' });
    const workers = [0, 1].map(() =>
      createOutbox({
        storage: tk.kernel.storage,
        transport: createMailTransport(config),
        logger: tk.kernel.logger,
        maxAttempts: 3,
        retryDelayMs: 50,
      }),
    );
    for (let i = 0; i < MAILS; i++) {
      await workers[0].add('forgot_password', {
        to: `n${i}@example.com`,
        subject: `m${i}`,
        html: '<p>x</p>',
        text: 'x',
      });
    }
    for (const w of workers) w.start();
    const deadline = Date.now() + 20_000;
    while (sink.messages.length < MAILS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1500));
    await Promise.all(workers.map((w) => w.stop()));
    const subjects = sink.messages.map((m) => m.subject).sort();
    t.equal(subjects.length, MAILS, 'every mail arrived');
    t.equal(new Set(subjects).size, MAILS, 'none twice');
    const sent = workers.map((w) => w.stats().sent);
    t.equal(sent[0] + sent[1], MAILS);
  });
}

t.test('a row held by a node that died is sent once its lease runs out', async (t) => {
  const sink = await startSmtpSink();
  const tk = await bootTestKernel({ plugins: [keysPlugin, emailPlugin], flags: KEYS });
  t.teardown(async () => {
    await tk.close();
    await sink.close();
  });
  const config = new Config({ 'smtp-host': '127.0.0.1', 'smtp-port': sink.port, url: 'http://localhost' });
  const worker = createOutbox({
    storage: tk.kernel.storage,
    transport: createMailTransport(config),
    logger: tk.kernel.logger,
    maxAttempts: 3,
    retryDelayMs: 50,
  });
  await worker.add('forgot_password', { to: 'held@example.com', subject: 'held', html: '<p>x</p>', text: 'x' });
  // What a node that crashed while sending leaves behind: the row with its live lease.
  const em = tk.kernel.storage.em();
  await em.nativeUpdate(MailOutboxEntity, {} as never, { leaseUntil: Date.now() + 60_000 } as never);
  worker.start();
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(sink.messages.length, 0, 'not sent while another node holds it');
  await em.nativeUpdate(MailOutboxEntity, {} as never, { leaseUntil: Date.now() - 1 } as never);
  await sink.next('held@example.com', 5000);
  await worker.stop();
  t.equal(sink.messages.length, 1);
});
