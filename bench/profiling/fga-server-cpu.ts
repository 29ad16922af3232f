/**
 * Development aid, not part of `npm run bench`: server CPU per request of REST check_permissions
 * (one check) against the bench's bare Fastify route, driven by wrk (`apt-get install wrk`), on
 * the FGA bench data set in a temporary SQLite file. Quicker than the bench's FGA section and
 * steadier for comparing two versions of the engine on one machine.
 *
 *   npx tsx bench/profiling/fga-server-cpu.ts
 *
 * Environment: N tuples (default 10000), S seconds per run (5), ONLY=repeated|distinct (three runs
 * of one kind on the Latchkey server only), PROF=<dir> (the server writes a CPU profile there;
 * read it with cpuprofile-summary.ts), SERVER_NODE_ARGS (node flags for the server only),
 * AGAINST=<another checkout of Latchkey, with node_modules> (that checkout's server on the same
 * data takes the bare route's place, its rows labelled AGAINST; with ONLY the runs alternate
 * between the two, R pairs, default 3: an A/B of two versions). Rows: requests/s and server CPU µs per request (/proc).
 * "distinct" picks a random user and document per request (wrk's Lua generator, so a repeat is
 * possible but rare at 100k tuples and up); "repeated" sends one check, which the check-answer
 * cache answers.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Config } from '../../core/config.js';
import { openStorage } from '../../storage/index.js';
import { FgaService } from '../../plugins/fga/service.js';
import { SqlFgaStore } from '../../plugins/fga/store/sql-store.js';
import { fgaEntities } from '../../plugins/fga/store/sql-entities.js';
import { sqliteTarget } from '../../test/helpers/databases.js';
import { TEST_ADMIN_SECRET } from '../../test/helpers/server.js';
import { startBenchChild, type BenchChild } from '../child.js';
import { BENCH_MODEL, generate } from '../fga/dataset.js';

interface Info {
  base: string;
  origin?: string;
}

const size = Number(process.env.N ?? 10000);
const seconds = Number(process.env.S ?? 5);
const target = await sqliteTarget();
const storage = await openStorage(new Config(target.flags), fgaEntities);
const store = await SqlFgaStore.open(storage, true);
const writer = await FgaService.open(store, { syncIntervalMs: 0, pruneIntervalMs: 0 });
await writer.installModel(BENCH_MODEL);
const data = generate(size);
await store.importTuples(data.tuples);
const { users, documents } = data;

const server = await startBenchChild<Info>(new URL('../fga/servers/latchkey.ts', import.meta.url), {
  args: [JSON.stringify(target.flags)],
  nodeArgs: (process.env.SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ...(process.env.PROF ? { cpuProfDir: process.env.PROF } : {}),
});
const against = process.env.AGAINST;
/** What the server is measured against: the bare route, or with AGAINST another version's server. */
const reference = against
  ? await startBenchChild<Info>(new URL(`file://${against}/bench/fga/servers/latchkey.ts`), {
      args: [JSON.stringify(target.flags)],
    })
  : await startBenchChild<Info>(new URL('../fga/servers/bare.ts', import.meta.url));
/** The reference's label in the rows: without ONLY, AGAINST's server is run where the bare route would be. */
const referenceName = against ? 'AGAINST' : 'bare';
const origin = server.info.origin ?? server.info.base;
const headers = `wrk.method="POST"\nwrk.headers["content-type"]="application/json"\nwrk.headers["x-service-admin-secret"]="${TEST_ADMIN_SECRET}"\nwrk.headers["origin"]="${origin}"\n`;
const dir = mkdtempSync(join(tmpdir(), 'lk-fga-cpu-'));
const scripts = {
  repeated: join(dir, 'repeated.lua'),
  distinct: join(dir, 'distinct.lua'),
};
writeFileSync(
  scripts.repeated,
  `${headers}wrk.body='{"user":"user:u1","checks":[{"relation":"can_view","object":"document:d1"}]}'\n`,
);
writeFileSync(
  scripts.distinct,
  `${headers}request=function() local u=math.random(0,${users - 1}) local d=math.random(0,${documents - 1}) return wrk.format(nil,nil,nil,'{"user":"user:u'..u..'","checks":[{"relation":"can_view","object":"document:d'..d..'"}]}') end\n`,
);

function run(child: BenchChild<Info>, script: string, label: string): void {
  const before = child.cpuSeconds();
  const out = execFileSync(
    'wrk',
    ['-t1', '-c32', `-d${seconds}s`, '-s', script, `${child.info.base}/v1/check_permissions`],
    { encoding: 'utf8' },
  );
  const cpu = child.cpuSeconds() - before;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const refused = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1];
  console.log(
    label.padEnd(20),
    `${Math.round(requests / seconds)} req/s`.padEnd(14),
    `${((cpu * 1e6) / requests).toFixed(1)} µs/req`,
    refused ? `(${refused} refused)` : '',
  );
}

const only = process.env.ONLY as keyof typeof scripts | undefined;
if (only && against) {
  for (let i = 0; i < Number(process.env.R ?? 3); i++) {
    run(server, scripts[only], `this ${only}`);
    run(reference, scripts[only], `${referenceName} ${only}`);
  }
} else if (only) {
  for (let i = 0; i < 3; i++) run(server, scripts[only], `latchkey ${only}`);
} else {
  for (let round = 0; round < 2; round++) {
    run(reference, scripts.repeated, `${referenceName} repeated`);
    run(server, scripts.repeated, 'latchkey repeated');
    run(server, scripts.distinct, 'latchkey distinct');
    run(reference, scripts.distinct, `${referenceName} distinct`);
  }
}
await server.stop();
await reference.stop();
await writer.close();
await storage.close();
await target.dispose();
