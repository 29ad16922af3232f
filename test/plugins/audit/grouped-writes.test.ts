/**
 * Audit records asked for in one event-loop turn are committed by one statement, each caller
 * answered once its row is stored; when the group is refused, the rows are written one by one, so
 * only a row the database refuses fails, and the others are stored.
 */
import t from 'tap';
import { Config } from '../../../core/config.js';
import type { AuditRecord } from '../../../core/audit.js';
import type { Storage } from '../../../core/storage.js';
import { openStorage } from '../../../storage/index.js';
import { AuditLogEntity } from '../../../plugins/audit/entities.js';
import { createAuditService } from '../../../plugins/audit/service.js';
import { sqliteTarget } from '../../helpers/databases.js';

const target = await sqliteTarget();
t.teardown(() => target.dispose());
const storage = await openStorage(new Config(target.flags), [AuditLogEntity]);
t.teardown(() => storage.close());

/** The storage with its statements counted, and refused when `refuse` says so. */
function counted(refuse: (params: unknown[]) => boolean): { storage: Storage; inserts: number[] } {
  const inserts: number[] = [];
  const wrapped = Object.create(storage) as Storage & { statements: Storage['statements'] };
  Object.defineProperty(wrapped, 'statements', {
    value: {
      run: (sql: string, params: unknown[], method: 'run', options?: object) => {
        if (sql.startsWith('insert into')) inserts.push((sql.match(/\(\?/g) ?? []).length);
        if (refuse(params)) return Promise.reject(new Error('refused'));
        return storage.statements.run(sql, params, method, options);
      },
    },
  });
  return { storage: wrapped, inserts };
}

const record = (actor: string): AuditRecord => ({
  action: 'user.login',
  resourceType: 'user',
  resourceId: actor,
  actor: { kind: 'user', id: actor },
  ip: '127.0.0.1',
  userAgent: 'tap',
  outcome: 'success',
  metadata: { method: 'password' },
  at: Date.now(),
});

t.test('one turn, one statement, every row stored', async (t) => {
  const probe = counted(() => false);
  const audit = createAuditService(probe.storage);
  await Promise.all(['g1', 'g2', 'g3', 'g4', 'g5'].map((actor) => audit.write(record(actor))));
  t.strictSame(probe.inserts, [5], 'the five records went in one statement');
  await audit.write(record('g6'));
  t.strictSame(probe.inserts, [5, 1], 'a record alone in its turn goes alone');
  const stored = await audit.list({ action: 'user.login' }, { limit: 100, offset: 0 });
  t.strictSame(stored.rows.map((r) => r.actorId).sort(), ['g1', 'g2', 'g3', 'g4', 'g5', 'g6']);
});

t.test('a refused group is written row by row: only the refused row fails', async (t) => {
  const probe = counted((params) => params.length > 11 || params.includes('bad'));
  const audit = createAuditService(probe.storage);
  const results = await Promise.allSettled(['h1', 'bad', 'h3'].map((actor) => audit.write(record(actor))));
  t.strictSame(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  t.strictSame(probe.inserts, [3, 1, 1, 1], 'the group, then each row alone');
  const stored = await audit.list({ action: 'user.login' }, { limit: 100, offset: 0 });
  t.ok(
    stored.rows.some((r) => r.actorId === 'h1') && stored.rows.some((r) => r.actorId === 'h3'),
    'the others are stored',
  );
  t.notOk(
    stored.rows.some((r) => r.actorId === 'bad'),
    'the refused one is not',
  );
});
