/**
 * FGA bench (`npm run bench fga`): for each size (FGA_BENCH_SIZES, default 10k,100k,1M tuples)
 * and store (SQLite; PostgreSQL when reachable), load the data set through the SQL store, open a
 * node (snapshot into the index) and measure, in process: single check p50/p99, a batch of 100
 * checks, and list_permissions over documents for a user with 1000 visible documents; plus how
 * long a write on one node takes to be seen by a second node polling the same database.
 */
import { Config } from '../../core/config.js';
import { openStorage } from '../../storage/index.js';
import { FgaService } from '../../plugins/fga/service.js';
import { SqlFgaStore } from '../../plugins/fga/store/sql-store.js';
import { fgaEntities } from '../../plugins/fga/store/sql-entities.js';
import { databaseTarget, type DbName } from '../../test/helpers/databases.js';
import type { Row } from '../table.js';
import { BENCH_MODEL, generate } from './dataset.js';

const SIZES = (process.env.FGA_BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const STORES: DbName[] = (process.env.FGA_BENCH_STORES ?? 'sqlite,postgres').split(',') as DbName[];

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const label = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);

export async function runFgaBench(): Promise<Row[]> {
  const rows: Row[] = [];
  const section = 'fga';
  for (const storeName of STORES) {
    for (const size of SIZES) {
      const target = await databaseTarget(storeName);
      if (!target) {
        rows.push({ section, name: `${storeName} ${label(size)}`, value: 0, unit: '-', note: 'database not reachable' });
        continue;
      }
      const tag = `${storeName} ${label(size)}`;
      try {
        const storage = await openStorage(new Config(target.flags), fgaEntities);
        const store = await SqlFgaStore.open(storage, true);
        await store.installModel(BENCH_MODEL);
        const data = generate(size);
        let t0 = performance.now();
        for (let i = 0; i < data.tuples.length; i += 5000) await store.writeTuples(data.tuples.slice(i, i + 5000), []);
        rows.push({ section, name: `${tag}: write ${data.tuples.length} tuples`, value: (performance.now() - t0) / 1000, unit: 's' });
        t0 = performance.now();
        const node = await FgaService.open(store, { syncIntervalMs: 0 });
        rows.push({ section, name: `${tag}: node start (snapshot into index)`, value: (performance.now() - t0) / 1000, unit: 's', note: `heap ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB` });

        const rnd = (n: number) => Math.floor(Math.random() * n);
        const one = () => ({ user: `user:u${rnd(data.users)}`, relation: 'can_view', object: `document:d${rnd(data.documents)}` });
        for (let i = 0; i < 2000; i++) node.check([one()]); // warm-up
        const lat: number[] = [];
        for (let i = 0; i < 20000; i++) {
          const q = one();
          const s = performance.now();
          node.check([q]);
          lat.push(performance.now() - s);
        }
        lat.sort((a, b) => a - b);
        rows.push({ section, name: `${tag}: check in process p50`, value: pct(lat, 0.5) * 1000, unit: 'µs' });
        rows.push({ section, name: `${tag}: check in process p99`, value: pct(lat, 0.99) * 1000, unit: 'µs', note: 'target < 1000 µs at 1M' });

        const batch: number[] = [];
        for (let i = 0; i < 300; i++) {
          const qs = Array.from({ length: 100 }, one);
          const s = performance.now();
          node.check(qs);
          batch.push(performance.now() - s);
        }
        batch.sort((a, b) => a - b);
        rows.push({ section, name: `${tag}: batch of 100 checks p99`, value: pct(batch, 0.99), unit: 'ms', note: 'target < 20 ms' });

        const lists: number[] = [];
        let visible = 0;
        for (let i = 0; i < 100; i++) {
          const s = performance.now();
          visible = node.listPermissions('user:lister', { relation: 'can_view', objectType: 'document' }).objects.length;
          lists.push(performance.now() - s);
        }
        lists.sort((a, b) => a - b);
        rows.push({ section, name: `${tag}: list_permissions (${visible} visible) p99`, value: pct(lists, 0.99), unit: 'ms', note: 'target < 50 ms' });

        // Propagation: a second node on the same database, polling every 250 ms.
        const storage2 = await openStorage(new Config(target.flags), fgaEntities);
        const other = await FgaService.open(await SqlFgaStore.open(storage2, true), { syncIntervalMs: 250 });
        const probe = { user: 'user:probe', relation: 'viewer', object: 'document:probe' };
        const s = performance.now();
        await node.writeTuples([probe]);
        while (!other.check([probe])[0]) await new Promise((r) => setTimeout(r, 5));
        rows.push({ section, name: `${tag}: write on node A visible on node B`, value: performance.now() - s, unit: 'ms', note: 'poll interval 250 ms' });
        await other.close();
        await node.close();
      } catch (err) {
        rows.push({ section, name: tag, value: 0, unit: '-', note: `failed: ${(err as Error).message.slice(0, 120)}` });
      } finally {
        await target.dispose();
      }
    }
  }
  return rows;
}
