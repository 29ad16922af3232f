/**
 * Audit records on every SQL database: filters match exactly (MySQL and MariaDB compare ignoring
 * case and trailing spaces), and pages and `total` agree.
 */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { openStorage } from '../../../storage/index.js';
import { AuditLogEntity } from '../../../plugins/audit/entities.js';
import { createAuditService } from '../../../plugins/audit/service.js';
import { databaseTargets } from '../../helpers/databases.js';

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: exact filters, consistent pages`, async (t) => {
    const storage = await openStorage(new Config(target.flags), [AuditLogEntity]);
    t.teardown(() => storage.close());
    const audit = createAuditService(storage);
    const at = Date.UTC(2026, 0, 1);
    // Near misses of `admin` first, the exact ones interleaved, one second apart.
    const actors = ['ADMIN', 'admin', 'Admin', 'admin', 'aDmIn', 'admin', 'user:x'];
    for (const [i, actor] of actors.entries())
      await audit.record({
        name: 'fga.reset',
        payload: { actor, actor_kind: 'admin', ip: '127.0.0.1' },
        at: at + i * 1000,
      });
    await t.rejects(
      audit.record({ name: 'not.audited', payload: { actor: 'admin' }, at }),
      /"not.audited" is not an audited action/,
      'an unknown action is refused loudly',
    );
    const all = await audit.list({}, { limit: 100, offset: 0 });
    t.equal(all.total, actors.length, 'and nothing was recorded for it');
    const first = await audit.list({ actorId: 'admin' }, { limit: 2, offset: 0 });
    t.equal(first.total, 3, 'total counts exact matches only');
    t.same(
      first.rows.map((r) => r.actorId),
      ['admin', 'admin'],
    );
    t.same(
      first.rows.map((r) => Number(r.createdAt)),
      [Math.floor(at / 1000) + 5, Math.floor(at / 1000) + 3],
      'newest first',
    );
    const second = await audit.list({ actorId: 'admin' }, { limit: 2, offset: 2 });
    t.same(
      second.rows.map((r) => Number(r.createdAt)),
      [Math.floor(at / 1000) + 1],
      'the rest on the next page',
    );
    t.equal((await audit.list({ action: 'FGA.RESET' }, { limit: 10, offset: 0 })).total, 0);
    t.equal((await audit.list({ from: Math.floor(at / 1000) + 6 }, { limit: 10, offset: 0 })).total, 1, 'time filter');
  });
}
