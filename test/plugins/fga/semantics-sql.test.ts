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
