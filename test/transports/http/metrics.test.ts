/** The process metrics are prom-client's defaults, with the meaning prom-client documents. */
import t from 'tap';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { HttpMetrics } from '../../../transports/http/metrics.js';

const gauge = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
const names = (text: string): string[] =>
  [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]).filter((n) => !n.startsWith('latchkey_'));

t.test("the process metrics are exactly prom-client's default set", async (t) => {
  const metrics = new HttpMetrics(true);
  const reference = new Registry();
  collectDefaultMetrics({ register: reference });
  t.strictSame(names(await metrics.render()).sort(), names(await reference.metrics()).sort());
  for (const stat of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
    const help = new RegExp(
      `^# HELP nodejs_eventloop_lag_${stat}_seconds The .*(recorded event loop delay|event loop delays)`,
      'm',
    );
    t.match(await metrics.render(), help, `${stat}: prom-client's own gauge and help text`);
  }
});

t.test('a loop held busy shows in the event-loop delay', async (t) => {
  const metrics = new HttpMetrics(true);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const until = performance.now() + 300;
  while (performance.now() < until);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const max = gauge(await metrics.render(), 'nodejs_eventloop_lag_max_seconds');
  t.ok(max > 0.2 && max < 2, `max ${max} s after a 300 ms block`);
});

t.test('without default metrics only the request series are rendered', async (t) => {
  const metrics = new HttpMetrics(false);
  t.strictSame(names(await metrics.render()), []);
});
