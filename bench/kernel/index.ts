/**
 * Kernel section (issue 2): GET /v1/meta, GraphQL `meta` and gRPC `Meta` on Latchkey (base
 * plugins, SQLite) beside references measured in the same run: a bare Fastify route returning the
 * same Meta object, and a bare @grpc/grpc-js server answering the same Meta bytes (issue 48's floor:
 * gRPC `Meta` >= 70% of it). Every server runs in a
 * child process of its own; the load generator runs here (autocannon for HTTP; h2load for gRPC
 * when installed, else grpc-js's own client in this process, which then is the ceiling for both).
 * Each pair is warmed up, then measured A-B-B-A and averaged, so drift on a shared machine hits
 * both sides.
 *
 * Two numbers per row: the rate, and the server's CPU time per request (from /proc). On a 2-core
 * machine the load generator and the server share the cores, so the rate ratio understates a
 * slower server when the generator saturates first; the CPU-per-request ratio does not depend on
 * the generator and is the one the targets are judged by when they disagree (both are printed).
 * Floors: REST >= 70% of bare Fastify; GraphQL >= 50% of bare Fastify; gRPC >= 70% of bare grpc-js.
 *
 * What the REST row includes: the full pipeline (hooks: security and CORS headers, metrics; the
 * context; the operation) on every request. Meta is constant for the process, so its operation
 * declares `constantOutput` and REST sends JSON text serialized once, where the bare route
 * serializes per request (on 2026-11-21 that was ~3 µs of ~45 µs; without it REST measured 75-85%).
 */
import { pathToFileURL } from 'node:url';
import { grpcClient } from '../../test/helpers/grpc-client.js';
import { basePlugins } from '../../plugins/default.js';
import { defaultOperationTable } from '../../transports/default-build.js';
import { startBenchChild, type BenchChild } from '../child.js';
import { closedLoop, DURATION_S, grpcLoad, httpLoad, type LoadResult } from '../load.js';
import { printTable, type Row } from '../table.js';

interface LatchkeyInfo {
  base: string;
  origin: string;
  grpc: string;
  meta: Record<string, unknown>;
}
interface BareInfo {
  base: string;
  graphql: string;
  grpc: string;
}
interface Measured extends LoadResult {
  /** Server CPU microseconds per request. */
  cpuUs: number;
  meanMs?: number;
}

const S = 'kernel';

type Load = () => Promise<(LoadResult & { meanMs?: number }) | null>;

async function measure<T>(child: BenchChild<T>, load: Load): Promise<Measured | null> {
  const cpu0 = child.cpuSeconds();
  const r = await load();
  if (!r) return null;
  const cpu = child.cpuSeconds() - cpu0;
  return { ...r, cpuUs: (cpu * 1e6) / Math.max(1, r.rps * DURATION_S) };
}

/** A-B-B-A, averaged, after a warm-up of both (JIT and caches: the first seconds run slower). */
async function pair<A, B>(
  a: [BenchChild<A>, Load],
  b: [BenchChild<B>, Load],
  warmUp?: [() => Promise<unknown>, () => Promise<unknown>],
): Promise<[Measured, Measured] | null> {
  if (warmUp) for (const w of warmUp) await w();
  const a1 = await measure(...a);
  const b1 = await measure(...b);
  const b2 = await measure(...b);
  const a2 = await measure(...a);
  if (!a1 || !a2 || !b1 || !b2) return null;
  const mean = (x: Measured, y: Measured): Measured => ({
    rps: (x.rps + y.rps) / 2,
    p99ms: Math.max(x.p99ms, y.p99ms),
    errors: x.errors + y.errors,
    cpuUs: (x.cpuUs + y.cpuUs) / 2,
    meanMs: x.meanMs === undefined ? undefined : ((x.meanMs ?? 0) + (y.meanMs ?? 0)) / 2,
  });
  return [mean(a1, a2), mean(b1, b2)];
}

const latency = (m: Measured) =>
  Number.isNaN(m.p99ms) ? `mean ${m.meanMs?.toFixed(2)} ms` : `p99 ${m.p99ms.toFixed(1)} ms`;
const note = (m: Measured, extra = '') =>
  `${latency(m)}, server CPU ${m.cpuUs.toFixed(1)} us/req${m.errors ? `, ${m.errors} errors` : ''}${extra ? `, ${extra}` : ''}`;

function compared(name: string, m: Measured, refName: string, ref: Measured, target: string): Row {
  const cpuRatio = ref.cpuUs / m.cpuUs;
  return {
    section: S,
    name,
    value: m.rps,
    unit: 'req/s',
    reference: refName,
    ratio: m.rps / ref.rps,
    note: note(m, `CPU-per-request ratio ${(cpuRatio * 100).toFixed(0)}%, floor ${target}`),
  };
}

export async function runKernelBench(): Promise<Row[]> {
  const children: BenchChild<unknown>[] = [];
  try {
    const lk = await startBenchChild<LatchkeyInfo>(new URL('./servers/latchkey.ts', import.meta.url));
    children.push(lk);
    const bare = await startBenchChild<BareInfo>(new URL('./servers/bare.ts', import.meta.url), {
      args: [JSON.stringify(lk.info.meta)],
    });
    children.push(bare);
    const rows: Row[] = [];

    const warm =
      (url: string, extra: Partial<Parameters<typeof httpLoad>[0]> = {}) =>
      () =>
        httpLoad({ url, durationS: 2, ...extra });
    const gqlBody = JSON.stringify({
      query:
        '{ meta { version client_id is_sign_up_enabled is_basic_authentication_enabled is_google_login_enabled } }',
    });
    const gqlPost = {
      method: 'POST' as const,
      headers: { 'content-type': 'application/json', origin: lk.info.origin },
      body: gqlBody,
    };
    const rest = await pair(
      [bare, () => httpLoad({ url: `${bare.info.base}/v1/meta` })],
      [lk, () => httpLoad({ url: `${lk.info.base}/v1/meta` })],
      [warm(`${bare.info.base}/v1/meta`), warm(`${lk.info.base}/v1/meta`)],
    );
    const [bareHttp, lkRest] = rest!;
    rows.push({
      section: S,
      name: 'bare Fastify GET /v1/meta (object)',
      value: bareHttp.rps,
      unit: 'req/s',
      note: note(bareHttp),
    });
    rows.push(compared('REST GET /v1/meta', lkRest, 'bare Fastify', bareHttp, '70%'));

    const gqlLoad = () => httpLoad({ url: `${lk.info.base}/graphql`, ...gqlPost });
    const [bareHttp2, lkGql] = (await pair(
      [bare, () => httpLoad({ url: `${bare.info.base}/v1/meta` })],
      [lk, gqlLoad],
      [warm(bare.info.graphql, gqlPost), warm(`${lk.info.base}/graphql`, gqlPost)],
    ))!;
    rows.push(compared('GraphQL meta', lkGql, 'bare Fastify', bareHttp2, '50%'));
    const bareGqlLoad = () =>
      httpLoad({
        url: bare.info.graphql,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: gqlBody,
      });
    const [bareGql, lkGql2] = (await pair([bare, bareGqlLoad], [lk, gqlLoad]))!;
    rows.push({
      section: S,
      name: 'bare Mercurius meta (same query, JIT)',
      value: bareGql.rps,
      unit: 'req/s',
      reference: 'bare Fastify',
      ratio: bareGql.rps / bareHttp2.rps,
      note: note(bareGql, 'information: the GraphQL layer alone'),
    });
    rows.push(compared('GraphQL meta', lkGql2, 'bare Mercurius', bareGql, 'information'));

    // A real call first: h2load sees HTTP status only, so a broken method must fail here.
    const client = grpcClient(lk.info.grpc, defaultOperationTable(basePlugins));
    await client.call('meta');
    const path = '/latchkey.v1.AuthorizerService/Meta';
    const bareRpc = () => grpcLoad({ address: bare.info.grpc, path });
    const lkRpc = () => grpcLoad({ address: lk.info.grpc, path });
    const h2 = await pair([bare, bareRpc], [lk, lkRpc], [bareRpc, lkRpc]);
    if (h2) {
      const [bareGrpc, lkGrpc] = h2;
      client.close();
      rows.push({
        section: S,
        name: 'bare grpc-js Meta (h2load, 4 conns x 10 streams)',
        value: bareGrpc.rps,
        unit: 'req/s',
        note: note(bareGrpc, 'the same Meta bytes, no kernel'),
      });
      rows.push(compared('gRPC Meta (h2load)', lkGrpc, 'bare grpc-js', bareGrpc, '70%'));
    } else {
      const rpc = await closedLoop(() => client.call('meta'));
      client.close();
      rows.push({
        section: S,
        name: 'gRPC Meta (grpc-js client in the bench process)',
        value: rpc.rps,
        unit: 'req/s',
        reference: 'bare Fastify',
        ratio: rpc.rps / bareHttp.rps,
        note: `p99 ${rpc.p99ms.toFixed(1)} ms; h2load not installed (apt-get install nghttp2-client): the JS client is the ceiling here`,
      });
    }
    return rows;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printTable(await runKernelBench());
