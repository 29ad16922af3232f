/**
 * Case 6, the soak: one server on PostgreSQL with Redis under mixed load from 50 connections for
 * `seconds` (login, refresh-token rotation, profile, FGA checks, SCIM changes, and the webhook
 * deliveries that logins and SCIM changes cause). Held when, after the warm-up (the first minute,
 * or a fifth of a shorter run), resident memory grows under 30%, fewer than 0.1% of requests fail,
 * and the p99 latency of the last window is within twice that of the first window after warm-up.
 */
import { join } from 'node:path';
import { admin, call, login, profile, quantile, refresh, signup, sleep, within, type Answer } from './client.js';
import { startWebhookPeer } from './peers.js';
import { serverPorts, startServer } from './server-process.js';
import { openStack } from './stack.js';
import type { Check } from './table.js';

const CASE = '6 soak';
const CONNECTIONS = 50;
const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const MODEL = `model
  schema 1.1
type user
type document
  relations
    define viewer: [user]
`;

/** The mix, in parts of 100. */
const MIX: [string, number][] = [
  ['login', 8],
  ['refresh', 17],
  ['profile', 30],
  ['fga check', 30],
  ['scim change', 15],
];

interface Sample {
  at: number;
  ms: number;
  ok: boolean;
  op: string;
}

export async function soakCase(seconds: number): Promise<Check[]> {
  const stack = await openStack('postgres', { redis: true, label: 'soak', proxies: false });
  const hooks = await startWebhookPeer();
  const server = await startServer(await serverPorts(), stack.flags, join(stack.dir, 'server.log'));
  const base = server.url;
  const checks: Check[] = [];
  const target = 'postgres+redis';
  try {
    for (const event of ['user.login', 'user.scim_updated']) {
      await admin(base, 'add_webhook', {
        event_name: event,
        endpoint: `http://127.0.0.1:${hooks.port}/hook`,
        enabled: true,
      });
    }
    await admin(base, 'fga/model', { dsl: MODEL });
    const org = await admin(base, 'create_organization', { name: 'soak' });
    const scimToken = String(
      ((await admin(base, 'create_scim_endpoint', { org_id: org.id })) as { token: string }).token,
    );
    const scimHeaders = { 'content-type': 'application/scim+json' };

    interface Worker {
      email: string;
      access: string;
      refresh: string;
      scimId: string;
      n: number;
    }
    const workers: Worker[] = [];
    for (let i = 0; i < CONNECTIONS; i++) {
      const email = `soak-${i}@example.com`;
      const made = await signup(base, email);
      if (made.status !== 200) throw new Error(`signup: ${made.status} ${JSON.stringify(made.body)}`);
      const id = String((made.body.user as { id: string }).id);
      const a = await login(base, email);
      const tuples = Array.from({ length: 10 }, (_, j) => ({
        user: `user:${id}`,
        relation: 'viewer',
        object: `document:${i}-${j}`,
      }));
      await admin(base, 'fga/tuples', { tuples });
      const userName = `soak-scim-${i}@example.com`;
      const scim = await call(
        base,
        '/scim/v2/Users',
        {
          schemas: [SCIM_USER],
          userName,
          emails: [{ value: userName, primary: true }],
          name: { givenName: 'S', familyName: 'K' },
        },
        { bearer: scimToken, headers: scimHeaders },
      );
      if (scim.status !== 201) throw new Error(`SCIM create: ${scim.status} ${JSON.stringify(scim.body)}`);
      workers.push({
        email,
        access: String(a.body.access_token),
        refresh: String(a.body.refresh_token),
        scimId: String(scim.body.id),
        n: 0,
      });
    }

    const deliveredBefore = new Set(hooks.accepted.map((d) => d.deliveryId)).size;
    const samples: Sample[] = [];
    const rss: { at: number; bytes: number }[] = [];
    const failures = new Map<string, number>();
    const start = performance.now();
    const now = () => (performance.now() - start) / 1000;
    const end = seconds;
    let events = 0;
    const run = async (w: Worker, i: number) => {
      while (now() < end) {
        let pick = Math.random() * 100;
        const op = MIX.find(([, weight]) => (pick -= weight) < 0)?.[0] ?? 'profile';
        let a: Answer;
        switch (op) {
          case 'login':
            a = await login(base, w.email, 30_000);
            if (a.status === 200) {
              w.access = String(a.body.access_token);
              w.refresh = String(a.body.refresh_token);
              events++;
            }
            break;
          case 'refresh':
            a = await refresh(base, w.refresh, 30_000);
            if (a.status === 200) {
              w.access = String(a.body.access_token);
              w.refresh = String(a.body.refresh_token);
            }
            break;
          case 'fga check':
            a = await call(
              base,
              '/v1/check_permissions',
              { checks: [{ relation: 'viewer', object: `document:${i}-${w.n++ % 12}` }] },
              { bearer: w.access, timeoutMs: 30_000 },
            );
            break;
          case 'scim change':
            a = await call(
              base,
              `/scim/v2/Users/${w.scimId}`,
              { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name.givenName', value: `S${w.n++}` }] },
              { bearer: scimToken, headers: scimHeaders, method: 'PATCH', timeoutMs: 30_000 },
            );
            if (a.status === 200) events++;
            break;
          default:
            a = await profile(base, w.access, 30_000);
        }
        const ok = a.status >= 200 && a.status < 300;
        if (!ok) {
          const key = `${op} ${a.status || a.failure}`;
          failures.set(key, (failures.get(key) ?? 0) + 1);
        }
        samples.push({ at: now(), ms: a.ms, ok, op });
      }
    };
    const sampler = (async () => {
      while (now() < end) {
        rss.push({ at: now(), bytes: server.resident() });
        await sleep(1_000);
      }
    })();
    await Promise.all([...workers.map((w, i) => run(w, i)), sampler]);

    const warmUp = Math.min(60, seconds / 5);
    const window = Math.min(60, seconds / 5);
    const rssAfterWarmUp = rss.find((r) => r.at >= warmUp)?.bytes ?? Number.NaN;
    const rssPeak = Math.max(...rss.filter((r) => r.at >= warmUp).map((r) => r.bytes));
    const rssLast = rss.at(-1)?.bytes ?? Number.NaN;
    const growth = (rssLast - rssAfterWarmUp) / rssAfterWarmUp;
    const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
    checks.push({
      case: CASE,
      target,
      check: `RSS growth after warm-up under 30% (${seconds} s, ${CONNECTIONS} connections)`,
      held: growth < 0.3,
      detail: `${mb(rssAfterWarmUp)} at ${warmUp.toFixed(0)} s -> ${mb(rssLast)} at the end (${(growth * 100).toFixed(1)}%, peak ${mb(rssPeak)})`,
    });
    const errors = samples.filter((s) => !s.ok).length;
    const rate = errors / samples.length;
    checks.push({
      case: CASE,
      target,
      check: 'errors under 0.1%',
      held: rate < 0.001,
      detail: `${errors} of ${samples.length} requests (${(rate * 100).toFixed(3)}%, ${(samples.length / seconds).toFixed(0)} req/s)${
        failures.size ? `: ${[...failures].map(([k, v]) => `${k} x${v}`).join(', ')}` : ''
      }`,
    });
    const first = samples.filter((s) => s.at >= warmUp && s.at < warmUp + window).map((s) => s.ms);
    const last = samples.filter((s) => s.at >= seconds - window).map((s) => s.ms);
    const p99First = quantile(first, 0.99);
    const p99Last = quantile(last, 0.99);
    checks.push({
      case: CASE,
      target,
      check: 'p99 of the last window within 2x of the first after warm-up',
      held: p99Last <= 2 * p99First,
      detail: `first ${p99First.toFixed(0)} ms (${warmUp.toFixed(0)}-${(warmUp + window).toFixed(0)} s), last ${p99Last.toFixed(0)} ms (final ${window.toFixed(0)} s); p50 ${quantile(
        samples.map((s) => s.ms),
        0.5,
      ).toFixed(0)} ms overall`,
    });
    // The webhook deliveries the load caused arrive (the outbox keeps up).
    const delivered = () => new Set(hooks.accepted.map((d) => d.deliveryId)).size - deliveredBefore;
    await within(30_000, async () => delivered() >= events, 1_000);
    const inTime = delivered();
    // A backlog left at 30 s is followed for 3 more minutes, so the table tells a slow outbox
    // from a lossy one.
    const drainStart = Date.now();
    if (inTime < events) await within(180_000, async () => delivered() >= events, 1_000);
    const drained =
      inTime >= events
        ? ''
        : delivered() >= events
          ? `; all ${events} by ${(30 + (Date.now() - drainStart) / 1000).toFixed(0)} s after the end`
          : `; ${delivered()} by 210 s after the end`;
    checks.push({
      case: CASE,
      target,
      check: 'webhook deliveries caused by the load all arrive within 30 s of the end',
      held: inTime >= events,
      detail: `${inTime} of ${events} (logins and SCIM changes) within 30 s of the end${drained}`,
    });
  } finally {
    await server.stop();
    await hooks.close();
    await stack.dispose();
  }
  return checks;
}
