/**
 * The same semantics suite on the SQL store (SQLite always; PostgreSQL and MariaDB when
 * reachable), each on a fresh database of its own, through the storage layer's openStorage.
 */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { openStorage } from '../../../storage/index.js';
import { FgaService } from '../../../plugins/fga/service.js';
import { SqlFgaStore } from '../../../plugins/fga/store/sql-store.js';
import { fgaEntities } from '../../../plugins/fga/store/sql-entities.js';
import { databaseTargets } from '../../helpers/databases.js';
import { semanticsSuite } from './semantics-suite.js';

const targets = await databaseTargets({ only: ['sqlite', 'postgres', 'mariadb'] });
for (const target of targets) {
  t.test(`FGA semantics on ${target.name}`, async (t) => {
    const storage = await openStorage(new Config(target.flags), fgaEntities);
    const svc = await FgaService.open(await SqlFgaStore.open(storage, true), { syncIntervalMs: 0 });
    t.teardown(async () => {
      await svc.close();
      await target.dispose();
    });
    await semanticsSuite(t, svc);
  });
}

/** A valid model of about `bytes` bytes of UTF-8: many small types, each named with `letter`s. */
function modelOfSize(bytes: number, letter = 'a'): string {
  let dsl = 'model\n  schema 1.1\ntype user\n';
  for (let i = 0; Buffer.byteLength(dsl) < bytes - 80; i++) dsl += `type t${i}_${letter.repeat(8)}\n  relations\n    define viewer: [user]\n`;
  return dsl;
}

for (const target of await databaseTargets({ only: ['sqlite', 'postgres', 'mariadb'] })) {
  t.test(`${target.name}: a model is at most 65,535 bytes on every store, and one that size installs`, async (t) => {
    const storage = await openStorage(new Config(target.flags), fgaEntities);
    const svc = await FgaService.open(await SqlFgaStore.open(storage, true), { syncIntervalMs: 0 });
    t.teardown(async () => {
      await svc.close();
      await target.dispose();
    });
    const largest = modelOfSize(65_535);
    t.ok(Buffer.byteLength(largest) <= 65_535 && Buffer.byteLength(largest) > 65_400, `${Buffer.byteLength(largest)} bytes`);
    const installed = await svc.installModel(largest);
    t.equal((await svc.getModel()).dsl, largest, 'stored whole (MariaDB: a TEXT column holds exactly this much)');
    t.equal(installed.dsl, largest);
    const over = `${largest}type overflow\n  relations\n    define viewer: [user]\n`;
    await t.rejects(svc.installModel(over), { code: 'invalid_argument', message: 'invalid model: at most 65535 bytes of UTF-8' }, 'over by a few bytes');
    // Under the character bound, over the byte bound: names in a two-byte letter.
    const wide = modelOfSize(70_000, 'é');
    t.ok(wide.length < 65_535 && Buffer.byteLength(wide) > 65_535);
    await t.rejects(svc.installModel(wide), { code: 'invalid_argument', message: 'invalid model: at most 65535 bytes of UTF-8' }, 'counted in bytes, not characters');
    t.equal((await svc.getModel()).dsl, largest, 'the model in force is unchanged');
  });
}
