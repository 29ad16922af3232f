/**
 * What the outbox queue's tests share: a kernel with the SMS plugin on one SQL database (its
 * outbox table is the queue's table in these tests), the one row in that table, and a wait for a
 * condition on it.
 */
import type { Test } from 'tap';
import { keysPlugin } from '../../plugins/keys/index.js';
import { outboundPlugin } from '../../plugins/outbound/index.js';
import { SmsOutboxEntity, type SmsOutboxRow } from '../../plugins/sms/entities.js';
import { smsPlugin } from '../../plugins/sms/index.js';
import type { DbTarget } from '../helpers/databases.js';
import { bootTestKernel, type TestKernel } from '../helpers/kernel.js';

const KEYS = { 'jwt-type': 'HS256', 'jwt-secret': 'outbox-queue-test-jwt-secret-0123456789' };

/** Boots the kernel on `target`, closed (and the database disposed) when `t` ends. */
export async function bootSmsOutboxKernel(
  t: Test,
  target: DbTarget,
): Promise<{ tk: TestKernel; clear: () => Promise<unknown> }> {
  const tk = await bootTestKernel({ plugins: [keysPlugin, outboundPlugin, smsPlugin], flags: KEYS, database: target });
  t.teardown(async () => {
    await tk.close();
    await target.dispose();
  });
  return { tk, clear: () => tk.kernel.storage.em().nativeDelete(SmsOutboxEntity, {} as never) };
}

export async function onlyRow(tk: TestKernel): Promise<SmsOutboxRow> {
  const rows = (await tk.kernel.storage.em().find(SmsOutboxEntity, {} as never)) as unknown as SmsOutboxRow[];
  if (rows.length !== 1) throw new Error(`${rows.length} rows`);
  return rows[0]!;
}

/** Waits up to 10 s for `check`, looking every 20 ms. */
export async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
