/**
 * Attempt outcomes as a group commit (plugins/webhooks/outcome-writer.ts), on every SQL database:
 * an outcome that finds no write running is committed alone, the ones that finish while it runs
 * are committed together by the next transaction, and each row gets its next state and its log
 * entry its answer. An outcome whose lease ran out leaves the row to its new holder and still
 * fills its log entry.
 */
import t from 'tap';
import { Config } from '../../../core/config.js';
import type { Logger } from '../../../core/logger.js';
import { WebhookDeliveryEntity, WebhookLogEntity, type DeliveryRow } from '../../../plugins/webhooks/entities.js';
import { createOutcomeWriter, type AttemptOutcome } from '../../../plugins/webhooks/outcome-writer.js';
import { CUT_OFF } from '../../../plugins/webhooks/start-attempts.js';
import type { Storage } from '../../../core/storage.js';
import { openStorage } from '../../../storage/index.js';
import { databaseTargets } from '../../helpers/databases.js';

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

const LEASE = { leaseUntil: Date.now() + 60_000, leaseOwner: 'worker-a' };

/** A delivery leased by worker-a with its attempt logged, as a claim leaves it. */
async function leasedDelivery(storage: Storage, id: string): Promise<DeliveryRow> {
  const now = Date.now();
  const row: DeliveryRow = {
    id,
    webhookId: 'hook',
    eventName: 'user.login',
    body: `{"n":"${id}"}`,
    state: 'pending',
    attempts: 1,
    nextAttemptAt: now,
    ...LEASE,
    lastError: null,
    createdAt: now,
    updatedAt: now,
  };
  const em = storage.em();
  em.create(WebhookDeliveryEntity, row as never);
  em.create(WebhookLogEntity, {
    id: `log-${id}`,
    webhookId: 'hook',
    deliveryId: id,
    attempt: 1,
    httpStatus: 0,
    response: CUT_OFF,
    request: row.body,
    createdAt: Math.floor(now / 1000),
    updatedAt: Math.floor(now / 1000),
  } as never);
  await em.flush();
  return row;
}

const delivered = (row: DeliveryRow): AttemptOutcome => ({
  row,
  logId: `log-${row.id}`,
  state: 'delivered',
  nextAttemptAt: row.nextAttemptAt,
  lastError: null,
  httpStatus: 204,
  response: `answer to ${row.id}`,
});

for (const target of targets) {
  t.test(`${target.name}: outcomes finishing together share a commit`, async (t) => {
    const storage = await openStorage(new Config(target.flags), [WebhookDeliveryEntity, WebhookLogEntity]);
    t.teardown(() => storage.close());
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn: (_o, msg) => warnings.push(msg ?? ''), error() {} };
    const writer = createOutcomeWriter(storage, logger);
    const rows: DeliveryRow[] = [];
    for (let i = 0; i < 10; i++) rows.push(await leasedDelivery(storage, `d${i}`));

    await Promise.all(rows.map((row) => writer.record(delivered(row))));
    t.equal(writer.commits, 2, 'the first outcome alone, the nine that came during its write together');
    const stored = (await storage
      .em()
      .find(WebhookDeliveryEntity, { webhookId: 'hook' } as never)) as never as DeliveryRow[];
    t.same(
      stored.map((r) => [r.state, r.leaseOwner]),
      rows.map(() => ['delivered', null]),
      'every row delivered and its lease released',
    );
    const logs = (await storage.em().find(WebhookLogEntity, { webhookId: 'hook' } as never)) as never as {
      httpStatus: number;
      response: string;
    }[];
    t.ok(
      logs.every((l) => l.httpStatus === 204 && l.response.startsWith('answer to d')),
      'every log entry has its answer',
    );

    const taken = await leasedDelivery(storage, 'taken');
    await storage
      .em()
      .nativeUpdate(WebhookDeliveryEntity, { id: 'taken' } as never, { leaseOwner: 'worker-b' } as never);
    await writer.record(delivered(taken));
    const after = (await storage.em().findOne(WebhookDeliveryEntity, { id: 'taken' } as never)) as never as DeliveryRow;
    t.same([after.state, after.leaseOwner], ['pending', 'worker-b'], 'a row another worker holds now is left to it');
    const log = (await storage.em().findOne(WebhookLogEntity, { id: 'log-taken' } as never)) as never as {
      httpStatus: number;
    };
    t.equal(log.httpStatus, 204, 'its attempt still gets its answer in the log');
    t.same(warnings, ['webhooks: a delivery lease ran out during its attempt'], 'and the lost lease is logged');
  });
}
