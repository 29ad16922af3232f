/**
 * Webhook outbox drain: how fast the delivery worker empties a backlog, alone and beside a slow
 * receiver. A kernel (outbound and webhooks plugins, default delivery timing) on a fresh database
 * gets a backlog written straight into the outbox, all of it due at one instant; a receiver in a
 * child process (node:http on 127.0.0.1) answers `/fast` at once and `/slow` after `--slow-ms`.
 *
 * - `fast`: `--events` rows for the fast receiver only;
 * - `mixed`: the same rows, every `--slow-every`th of them for the slow receiver instead.
 *
 * Prints per case the fast deliveries per second (from the due instant to the last fast answer)
 * and when the last delivery of each receiver arrived.
 *
 *   npx tsx bench/webhooks/drain.ts [--databases postgres,sqlite] [--events 2000]
 *     [--slow-ms 2000] [--slow-every 20] [--concurrency N] [--cases fast,mixed]
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { definePlugin } from '../../core/plugin.js';
import { outboundPlugin } from '../../plugins/outbound/index.js';
import { WebhookDeliveryEntity } from '../../plugins/webhooks/entities.js';
import { createWebhooksPlugin, type DeliveryTiming } from '../../plugins/webhooks/index.js';
import { databaseTarget, type DbName } from '../../test/helpers/databases.js';
import { bootTestKernel } from '../../test/helpers/kernel.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const databases = option('databases', 'postgres,sqlite').split(',') as DbName[];
const events = Number(option('events', '2000'));
const slowMs = Number(option('slow-ms', '2000'));
const slowEvery = Number(option('slow-every', '20'));
const cases = option('cases', 'fast,mixed').split(',') as ('fast' | 'mixed')[];
const concurrency = args.includes('--concurrency') ? Number(option('concurrency', '0')) : undefined;

const SECRET = 'drain-bench-client-secret';
/** Lead time between writing the backlog and its rows falling due. */
const DUE_IN_MS = 1500;

/** The receiver, in a child process so its work does not share the worker's event loop. */
const RECEIVER = `
const { createServer } = require('node:http');
const slowMs = Number(process.argv[1]);
const stats = { fast: 0, slow: 0, fastLast: 0, slowLast: 0 };
createServer((req, res) => {
  if (req.method === 'GET') return res.end(JSON.stringify(stats));
  req.resume();
  req.on('end', () => {
    const slow = req.url.startsWith('/slow');
    const answer = () => {
      const kind = slow ? 'slow' : 'fast';
      stats[kind]++;
      stats[kind + 'Last'] = Date.now();
      res.writeHead(200).end('ok');
    };
    if (slow) setTimeout(answer, slowMs); else answer();
  });
}).listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });
`;

interface Stats {
  fast: number;
  slow: number;
  fastLast: number;
  slowLast: number;
}

async function startReceiver(): Promise<{ url: string; stats(): Promise<Stats>; close(): void }> {
  const child = spawn(process.execPath, ['-e', RECEIVER, String(slowMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
  const url = `http://127.0.0.1:${port.trim()}`;
  return {
    url,
    stats: async () => (await (await fetch(url)).json()) as Stats,
    close: () => child.kill(),
  };
}

async function run(db: DbName, kind: 'fast' | 'mixed'): Promise<string> {
  const target = await databaseTarget(db);
  if (!target) return `${db} ${kind}: database not reachable`;
  const receiver = await startReceiver();
  const emitter = definePlugin({ name: 'emitter', description: 'declares the event', events: ['thing.happened'] });
  const timing: Partial<DeliveryTiming> = concurrency ? { concurrency } : {};
  const booted = await bootTestKernel({
    plugins: [outboundPlugin, emitter, createWebhooksPlugin({ timing })],
    database: target,
    flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'], 'client-secret': SECRET },
  });
  try {
    const webhooks = booted.kernel.service('webhooks');
    const fast = await webhooks.add({ event_name: 'thing.happened', endpoint: `${receiver.url}/fast`, enabled: true });
    const slow = await webhooks.add({ event_name: 'thing.happened', endpoint: `${receiver.url}/slow`, enabled: true });
    const due = Date.now() + DUE_IN_MS;
    const em = booted.kernel.storage.em();
    let slowRows = 0;
    for (let i = 0; i < events; i++) {
      const toSlow = kind === 'mixed' && i % slowEvery === slowEvery - 1;
      if (toSlow) slowRows++;
      const hook = toSlow ? slow : fast;
      em.create(WebhookDeliveryEntity, {
        id: `drain-${i}`,
        webhookId: hook.id,
        eventName: 'thing.happened',
        body: JSON.stringify({ webhook_id: hook.id, event_name: 'thing.happened', event_description: '', user: null }),
        state: 'pending',
        attempts: 0,
        nextAttemptAt: due,
        leaseUntil: null,
        leaseOwner: null,
        lastError: null,
        createdAt: due,
        updatedAt: due,
      } as never);
    }
    await em.flush();
    if (Date.now() > due) return `${db} ${kind}: writing the backlog took longer than ${DUE_IN_MS} ms`;
    const fastRows = events - slowRows;
    const load = loadavg()[0].toFixed(2);
    let s: Stats;
    for (;;) {
      await new Promise((r) => setTimeout(r, 50));
      s = await receiver.stats();
      if (s.fast >= fastRows && s.slow >= slowRows) break;
      if (Date.now() - due > 600_000) return `${db} ${kind}: not drained in 10 min (${JSON.stringify(s)})`;
    }
    const fastSeconds = (s.fastLast - due) / 1000;
    const slowPart =
      slowRows > 0 ? `, ${slowRows} slow (${slowMs} ms each) done at ${((s.slowLast - due) / 1000).toFixed(1)} s` : '';
    return (
      `${db} ${kind}: ${fastRows} fast deliveries in ${fastSeconds.toFixed(1)} s = ` +
      `${(fastRows / fastSeconds).toFixed(0)}/s${slowPart} (load average ${load} at start)`
    );
  } finally {
    await booted.close();
    receiver.close();
    await target.dispose();
  }
}

for (const db of databases) {
  for (const kind of cases) process.stdout.write(`${await run(db, kind)}\n`);
}
