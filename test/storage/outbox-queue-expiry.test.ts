/**
 * The outbox queue's `expiry` (storage/outbox-queue.ts), on every SQL database reachable here,
 * with the SMS outbox's table: a row due past its time is marked failed without a send, its
 * attempt count as it was, counted and logged once; a failed attempt whose retry would come after
 * the time fails the row at once; a retry before it is scheduled as usual; a row with no time,
 * and a queue without `expiry` (the mail outbox), retry as they always did.
 */
import t from 'tap';
import { SmsOutboxEntity, type SmsOutboxRow } from '../../plugins/sms/entities.js';
import { createOutboxQueue, type OutboxQueue } from '../../storage/outbox-queue.js';
import { databaseTargets } from '../helpers/databases.js';
import type { TestKernel } from '../helpers/kernel.js';
import { bootSmsOutboxKernel, onlyRow, until } from './sms-outbox-kernel.js';

const EXPIRED = 'of no use any more';

interface Probe {
  queue: OutboxQueue<SmsOutboxRow>;
  calls: () => number;
  failed: () => number;
}

/** A queue whose send fails `failures` times, then succeeds; with `expiry` unless told otherwise. */
function probe(tk: TestKernel, o: { failures: number; retryDelayMs: number; withExpiry?: boolean }): Probe {
  let calls = 0;
  let failed = 0;
  const queue = createOutboxQueue<SmsOutboxRow>({
    storage: tk.kernel.storage,
    logger: tk.kernel.logger,
    entity: SmsOutboxEntity,
    label: 'SMS',
    listedBy: 'the test',
    leaseMs: 60_000,
    maxAttempts: 10,
    retryDelayMs: o.retryDelayMs,
    pollMs: 20,
    onFailed: () => failed++,
    ...(o.withExpiry === false
      ? {}
      : {
          expiry: {
            of: (row: SmsOutboxRow) =>
              row.expiresAt === null || row.expiresAt === undefined ? null : Number(row.expiresAt),
            error: EXPIRED,
          },
        }),
    send: async () => {
      calls++;
      if (calls <= o.failures) throw new Error('the gateway answered 500');
    },
  });
  return { queue, calls: () => calls, failed: () => failed };
}

const settled = async (tk: TestKernel) => {
  const row = await onlyRow(tk);
  return Number(row.attempts) >= 1 && row.leaseUntil === null;
};

for (const target of await databaseTargets({ sqlOnly: true })) {
  t.test(target.name, async (t) => {
    const { tk, clear } = await bootSmsOutboxKernel(t, target);

    t.test('a due row past its time is failed without a send', async (t) => {
      await clear();
      const p = probe(tk, { failures: 0, retryDelayMs: 50 });
      t.teardown(() => p.queue.stop());
      // Stored before the worker runs: found due once its time has passed.
      await p.queue.add({ recipient: '+15558600001', body: 'x', expiresAt: Date.now() - 1 });
      p.queue.start();
      await until('the row to fail', async () => (await onlyRow(tk)).status === 'failed');
      const row = await onlyRow(tk);
      t.equal(row.lastError, EXPIRED);
      t.equal(Number(row.attempts), 0, 'no attempt counted: nothing was sent');
      t.equal(row.leaseUntil, null);
      t.equal(row.sentAt, null);
      await new Promise((resolve) => setTimeout(resolve, 200));
      t.equal(p.calls(), 0, 'never sent');
      t.equal(p.failed(), 1, 'counted once');
      t.same(p.queue.stats(), { sent: 0, retried: 0, failed: 1 });
    });

    t.test('a retry that would come after the time fails the row at once', async (t) => {
      await clear();
      const p = probe(tk, { failures: 100, retryDelayMs: 10_000 });
      t.teardown(() => p.queue.stop());
      p.queue.start();
      const expiresAt = Date.now() + 5_000;
      await p.queue.add({ recipient: '+15558600002', body: 'x', expiresAt });
      await until('the row to fail', async () => (await onlyRow(tk)).status === 'failed');
      const row = await onlyRow(tk);
      t.equal(row.lastError, EXPIRED, 'the reason is the time, the refusal is logged');
      t.equal(Number(row.attempts), 1);
      t.ok(Date.now() < expiresAt, 'failed before the time itself: no retry was left before it');
      t.equal(p.calls(), 1);
      t.equal(p.failed(), 1);
      t.same(p.queue.stats(), { sent: 0, retried: 0, failed: 1 });
    });

    t.test('a retry before the time is scheduled as usual', async (t) => {
      await clear();
      const p = probe(tk, { failures: 2, retryDelayMs: 50 });
      t.teardown(() => p.queue.stop());
      p.queue.start();
      await p.queue.add({ recipient: '+15558600003', body: 'x', expiresAt: Date.now() + 60_000 });
      await until('the row to be sent', async () => (await onlyRow(tk)).status === 'sent');
      const row = await onlyRow(tk);
      t.equal(Number(row.attempts), 3);
      t.equal(row.lastError, null);
      t.same(p.queue.stats(), { sent: 1, retried: 2, failed: 0 });
    });

    for (const [name, withExpiry, expiresAt] of [
      ['a row with no time', true, null],
      ['a queue without expiry, whatever the row holds', false, 1],
    ] as const) {
      t.test(`${name} waits out a long backoff, as before`, async (t) => {
        await clear();
        const p = probe(tk, { failures: 100, retryDelayMs: 10_000, withExpiry });
        t.teardown(() => p.queue.stop());
        p.queue.start();
        await p.queue.add({ recipient: '+15558600004', body: 'x', expiresAt });
        await until('the failed attempt to be written', () => settled(tk));
        const row = await onlyRow(tk);
        t.equal(row.status, 'pending');
        t.equal(row.lastError, 'the gateway answered 500');
        t.ok(Number(row.nextAttemptAt) - Date.now() > 9_000, 'retried after the backoff');
        t.same(p.queue.stats(), { sent: 0, retried: 1, failed: 0 });
      });
    }
  });
}
