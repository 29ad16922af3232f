/**
 * The outbox queue both the mail and the SMS outboxes run on (storage/outbox-queue.ts), on every
 * SQL database reachable here, with the SMS outbox's table: an attempt is counted on the row
 * before its send starts, so a node that dies during the attempt leaves it counted and marked cut
 * off, and the node that sends the row once the lease runs out makes it a second, logged attempt;
 * a failing send is retried with backoff and given up after the last attempt.
 */
import t from 'tap';
import { SmsOutboxEntity, type SmsOutboxRow } from '../../plugins/sms/entities.js';
import { createOutboxQueue, CUT_OFF, type OutboxQueue } from '../../storage/outbox-queue.js';
import { databaseTargets } from '../helpers/databases.js';
import type { TestKernel } from '../helpers/kernel.js';
import { bootSmsOutboxKernel, onlyRow, until } from './sms-outbox-kernel.js';

function queueOn(
  tk: TestKernel,
  send: (row: SmsOutboxRow) => Promise<void>,
  maxAttempts = 3,
): OutboxQueue<SmsOutboxRow> {
  return createOutboxQueue<SmsOutboxRow>({
    storage: tk.kernel.storage,
    logger: tk.kernel.logger,
    entity: SmsOutboxEntity,
    label: 'SMS',
    listedBy: 'the test',
    leaseMs: 60_000,
    maxAttempts,
    retryDelayMs: 50,
    pollMs: 50,
    send,
  });
}

for (const target of await databaseTargets({ sqlOnly: true })) {
  t.test(target.name, async (t) => {
    const { tk, clear } = await bootSmsOutboxKernel(t, target);

    t.test('an attempt cut off by a crash stays counted; the send after it is the second attempt', async (t) => {
      await clear();
      // The node that dies: its send never finishes (the process is gone before the answer).
      let started = 0;
      const dying = queueOn(tk, () => {
        started++;
        return new Promise<void>(() => {});
      });
      await dying.add({ recipient: '+15558300001', body: 'code 123456' });
      dying.start();
      await until('the attempt to start', async () => started === 1);
      const during = await onlyRow(tk);
      t.equal(Number(during.attempts), 1, 'counted before the send started');
      t.equal(during.lastError, CUT_OFF, 'marked cut off until an outcome is written');
      t.not(during.leaseUntil, null, 'held by the dying node');

      // What the crash leaves: the row as it is, its lease running out.
      await tk.kernel.storage.em().nativeUpdate(SmsOutboxEntity, {} as never, { leaseUntil: Date.now() - 1 } as never);
      const sent: string[] = [];
      const next = queueOn(tk, async (row) => void sent.push(row.body));
      next.start();
      t.teardown(() => next.stop());
      await until('the row to be sent', async () => (await onlyRow(tk)).status === 'sent');
      const after = await onlyRow(tk);
      t.same(sent, ['code 123456'], 'sent once by the next node');
      t.equal(Number(after.attempts), 2, 'the send after the crash shows as the second attempt');
      t.equal(after.lastError, null);
    });

    t.test('a failing send is retried with backoff, then given up', async (t) => {
      await clear();
      let calls = 0;
      let failed = 0;
      const queue = createOutboxQueue<SmsOutboxRow>({
        storage: tk.kernel.storage,
        logger: tk.kernel.logger,
        entity: SmsOutboxEntity,
        label: 'SMS',
        listedBy: 'the test',
        leaseMs: 60_000,
        maxAttempts: 3,
        retryDelayMs: 50,
        pollMs: 20,
        onFailed: () => failed++,
        send: async () => {
          calls++;
          throw new Error('the gateway answered 500');
        },
      });
      await queue.add({ recipient: '+15558300002', body: 'x' });
      queue.start();
      t.teardown(() => queue.stop());
      await until('the row to fail', async () => (await onlyRow(tk)).status === 'failed');
      const row = await onlyRow(tk);
      t.equal(calls, 3, 'three attempts');
      t.equal(Number(row.attempts), 3);
      t.equal(row.lastError, 'the gateway answered 500', 'the last reason, not the cut-off mark');
      t.equal(failed, 1, 'the give-up counted once');
      t.same(queue.stats(), { sent: 0, retried: 2, failed: 1 });
      t.ok(await queue.retry(row.id), 'an admin may queue it again');
      t.equal((await onlyRow(tk)).status, 'pending');
      await queue.stop();
    });
  });
}
