/**
 * Starting the attempts of one claim (plugins/webhooks/start-attempts.ts through claimRows'
 * `withClaimed` and `count`), on every SQL database: the claim counts the attempt with the lease,
 * a row of an enabled webhook gets its attempt logged as cut off until an answer is written, and a
 * row whose webhook was disabled or deleted is cancelled with its count as it was, without a log
 * entry.
 */
import t from 'tap';
import { Config } from '../../../core/config.js';
import {
  WebhookDeliveryEntity,
  WebhookEntity,
  WebhookLogEntity,
  type DeliveryRow,
  type WebhookLogRow,
} from '../../../plugins/webhooks/entities.js';
import { CUT_OFF, startAttempts, type StartedAttempt } from '../../../plugins/webhooks/start-attempts.js';
import { claimRows, openStorage } from '../../../storage/index.js';
import { databaseTargets } from '../../helpers/databases.js';

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: a claim counts, logs or cancels each attempt`, async (t) => {
    const storage = await openStorage(new Config(target.flags), [
      WebhookEntity,
      WebhookDeliveryEntity,
      WebhookLogEntity,
    ]);
    t.teardown(() => storage.close());
    const now = Date.now();
    const em = storage.em();
    const hook = (id: string, enabled: boolean) =>
      em.create(WebhookEntity, {
        id,
        eventName: 'user.login',
        eventDescription: null,
        endpoint: 'http://127.0.0.1:9/hook',
        enabled,
        headers: null,
        createdAt: 1,
        updatedAt: 1,
      } as never);
    hook('on', true);
    hook('off', false);
    // A row for each webhook, one for a webhook deleted since, and one already tried twice.
    const rows: [string, string, number][] = [
      ['to-on', 'on', 0],
      ['to-off', 'off', 0],
      ['to-gone', 'gone', 0],
      ['third-try', 'on', 2],
    ];
    for (const [i, [id, webhookId, attempts]] of rows.entries()) {
      em.create(WebhookDeliveryEntity, {
        id,
        webhookId,
        eventName: 'user.login',
        body: `{"row":"${id}"}`,
        state: 'pending',
        attempts,
        nextAttemptAt: now - 100 + i,
        leaseUntil: null,
        leaseOwner: null,
        lastError: null,
        createdAt: now,
        updatedAt: now,
      } as never);
    }
    await em.flush();

    let started: StartedAttempt[] = [];
    const claimed = await claimRows<DeliveryRow>(storage, WebhookDeliveryEntity, {
      due: { state: 'pending', nextAttemptAt: { $lte: now } },
      orderBy: { nextAttemptAt: 'asc' },
      limit: 10,
      owner: 'worker',
      leaseMs: 60_000,
      now,
      count: 'attempts',
      withClaimed: async (tx, rows) => {
        started = await startAttempts(tx, rows, now);
      },
    });
    t.same(
      claimed.map((r) => [r.id, r.attempts]),
      [
        ['to-on', 1],
        ['to-off', 1],
        ['to-gone', 1],
        ['third-try', 3],
      ],
      'the claim answers every due row with its attempt counted',
    );
    t.same(
      started.map((s) => [s.row.id, s.attempt, s.webhook.id]),
      [
        ['to-on', 1, 'on'],
        ['third-try', 3, 'on'],
      ],
      'attempts start only for the enabled webhook',
    );

    const stored = new Map(
      ((await storage.em().find(WebhookDeliveryEntity, {} as never)) as unknown as DeliveryRow[]).map((r) => [r.id, r]),
    );
    t.match(stored.get('to-on'), { state: 'pending', attempts: 1, leaseOwner: 'worker' }, 'a started row stays leased');
    t.match(stored.get('third-try'), { state: 'pending', attempts: 3, leaseOwner: 'worker' }, 'its count stored');
    t.match(
      stored.get('to-off'),
      { state: 'cancelled', attempts: 0, leaseOwner: null, lastError: 'the webhook is disabled' },
      'a disabled webhook: cancelled, no attempt counted',
    );
    t.match(
      stored.get('to-gone'),
      { state: 'cancelled', attempts: 0, leaseOwner: null, lastError: 'the webhook was deleted' },
      'a deleted webhook: cancelled, no attempt counted',
    );

    const logs = (await storage.em().find(WebhookLogEntity, {} as never, {
      orderBy: { attempt: 'asc' },
    })) as unknown as WebhookLogRow[];
    t.same(
      logs.map((l) => [l.deliveryId, l.attempt, l.httpStatus, l.response, l.request]),
      [
        ['to-on', 1, 0, CUT_OFF, '{"row":"to-on"}'],
        ['third-try', 3, 0, CUT_OFF, '{"row":"third-try"}'],
      ],
      'each started attempt is logged as cut off until its answer is written',
    );
  });
}
