/**
 * The same semantics suite on the SQL store (SQLite always; PostgreSQL and MariaDB when
 * reachable), each on a fresh database of its own, through the storage layer's openStorage.
 */
import t, { type Test } from 'tap';
import { Config } from '../../../core/config.js';
import { openStorage } from '../../../storage/index.js';
import { FgaService } from '../../../plugins/fga/service.js';
import { READ_SCAN, SqlFgaStore } from '../../../plugins/fga/store/sql-store.js';
import { fgaEntities } from '../../../plugins/fga/store/sql-entities.js';
import { databaseTargets, type DbTarget } from '../../helpers/databases.js';
import { semanticsSuite } from './semantics-suite.js';

const targets = await databaseTargets({ only: ['sqlite', 'postgres', 'mariadb'] });

/** The FGA service on the SQL store of `target`, closed (and the database dropped) at the end of the test. */
async function openFga(t: Test, target: DbTarget): Promise<FgaService> {
  const storage = await openStorage(new Config(target.flags), fgaEntities);
  const svc = await FgaService.open(await SqlFgaStore.open(storage, true), { syncIntervalMs: 0 });
  t.teardown(async () => {
    await svc.close();
    await target.dispose();
  });
  return svc;
}
for (const target of targets) {
  t.test(`FGA semantics on ${target.name}`, async (t) => {
    const svc = await openFga(t, target);
    await semanticsSuite(t, svc);
  });
}

/** A valid model of about `bytes` bytes of UTF-8: many small types, each named with `letter`s. */
function modelOfSize(bytes: number, letter = 'a'): string {
  let dsl = 'model\n  schema 1.1\ntype user\n';
  for (let i = 0; Buffer.byteLength(dsl) < bytes - 80; i++)
    dsl += `type t${i}_${letter.repeat(8)}\n  relations\n    define viewer: [user]\n`;
  return dsl;
}

for (const target of await databaseTargets({ only: ['sqlite', 'postgres', 'mariadb'] })) {
  t.test(`${target.name}: a model is at most 65,535 bytes on every store, and one that size installs`, async (t) => {
    const svc = await openFga(t, target);
    const largest = modelOfSize(65_535);
    t.ok(
      Buffer.byteLength(largest) <= 65_535 && Buffer.byteLength(largest) > 65_400,
      `${Buffer.byteLength(largest)} bytes`,
    );
    const installed = await svc.installModel(largest);
    t.equal((await svc.getModel()).dsl, largest, 'stored whole (MariaDB: a TEXT column holds exactly this much)');
    t.equal(installed.dsl, largest);
    const over = `${largest}type overflow\n  relations\n    define viewer: [user]\n`;
    await t.rejects(
      svc.installModel(over),
      { code: 'invalid_argument', message: 'invalid model: at most 65535 bytes of UTF-8' },
      'over by a few bytes',
    );
    // Under the character bound, over the byte bound: names in a two-byte letter.
    const wide = modelOfSize(70_000, 'é');
    t.ok(wide.length < 65_535 && Buffer.byteLength(wide) > 65_535);
    await t.rejects(
      svc.installModel(wide),
      { code: 'invalid_argument', message: 'invalid model: at most 65535 bytes of UTF-8' },
      'counted in bytes, not characters',
    );
    t.equal((await svc.getModel()).dsl, largest, 'the model in force is unchanged');
  });
}

for (const target of await databaseTargets({ only: ['sqlite', 'postgres', 'mariadb'] })) {
  t.test(`${target.name}: a read's pages hold page_size exact matches, whatever the collation`, async (t) => {
    const svc = await openFga(t, target);
    await svc.installModel('model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]\n');
    // Near misses on MariaDB (case) sort among the exact ones.
    const users = ['user:Alice', 'user:ALICE', 'user:alice', 'user:aLiCe', 'user:ALIce'];
    const tuples = [];
    for (let d = 0; d < 4; d++) for (const user of users) tuples.push({ user, relation: 'viewer', object: `doc:${d}` });
    await svc.writeTuples(tuples);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await svc.readTuples({ user: 'user:alice' }, 1, token);
      pages++;
      t.ok(
        page.tuples.length === 1 || (page.tuples.length === 0 && page.continuationToken === ''),
        `page ${pages}: one tuple, or an empty last page`,
      );
      for (const x of page.tuples) seen.push(`${x.user}|${x.object}`);
      token = page.continuationToken || undefined;
    } while (token && pages < 50);
    t.same(
      seen.sort(),
      ['user:alice|doc:0', 'user:alice|doc:1', 'user:alice|doc:2', 'user:alice|doc:3'],
      'every exact match once, no near miss',
    );
    t.ok(pages <= 5, `${pages} pages for 4 matches`);
  });
}

for (const target of await databaseTargets({ only: ['mariadb'] })) {
  t.test(
    `${target.name}: a read among more near misses than one call looks at answers a short page and goes on`,
    async (t) => {
      const svc = await openFga(t, target);
      await svc.installModel('model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]\n');
      const near = Array.from({ length: READ_SCAN + 500 }, (_, i) => ({
        user: 'user:ALICE',
        relation: 'viewer',
        object: `doc:${i}`,
      }));
      await svc.importTuples([
        ...near,
        { user: 'user:alice', relation: 'viewer', object: 'doc:1' },
        { user: 'user:alice', relation: 'viewer', object: 'doc:99999' },
      ]);
      const seen: string[] = [];
      let token: string | undefined;
      let calls = 0;
      const started = performance.now();
      do {
        const page = await svc.readTuples({ user: 'user:alice' }, 1, token);
        calls++;
        t.ok(page.tuples.length <= 1);
        for (const x of page.tuples) seen.push(x.object);
        token = page.continuationToken || undefined;
      } while (token && calls < 50);
      t.same(seen.sort(), ['doc:1', 'doc:99999'], 'both exact matches, once each');
      t.ok(calls <= 6, `${calls} calls`);
      t.ok(performance.now() - started < 5_000, `${Math.round(performance.now() - started)} ms`);
    },
  );
}
