/** The process metrics: what they report, and that gathering them does not keep waking the process. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import t from 'tap';
import { EVENT_LOOP_SAMPLE_MS, HttpMetrics } from '../../../transports/http/metrics.js';

const METRICS_MODULE = new URL('../../../transports/http/metrics.ts', import.meta.url).href;

const gauge = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);

t.test('the event-loop delay gauges show how late the loop was, not the sampling interval', async (t) => {
  const metrics = new HttpMetrics(true);
  await new Promise((resolve) => setTimeout(resolve, 5 * EVENT_LOOP_SAMPLE_MS));
  const text = await metrics.render();
  for (const stat of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
    t.equal(
      text.match(new RegExp(`^nodejs_eventloop_lag_${stat}_seconds `, 'gm'))?.length,
      1,
      `${stat}: one gauge of the name`,
    );
  }
  // Node's histogram holds whole intervals (~0.1 s each at rest); the interval is subtracted.
  const p50 = gauge(text, 'nodejs_eventloop_lag_p50_seconds');
  t.ok(p50 >= 0 && p50 < 0.05, `p50 ${p50} s: the delay beyond the ${EVENT_LOOP_SAMPLE_MS} ms interval`);
  t.ok(gauge(text, 'nodejs_eventloop_lag_max_seconds') >= p50, 'max is at least p50');
  // A loop held busy for 300 ms shows in the next scrape's max.
  await new Promise((resolve) => setTimeout(resolve, EVENT_LOOP_SAMPLE_MS));
  const until = performance.now() + 300;
  while (performance.now() < until);
  await new Promise((resolve) => setTimeout(resolve, 2 * EVENT_LOOP_SAMPLE_MS));
  const busy = gauge(await metrics.render(), 'nodejs_eventloop_lag_max_seconds');
  t.ok(busy > 0.15 && busy < 1, `max ${busy} s after a 300 ms block`);
});

/**
 * An idle process with the metrics on, counted by the kernel: its main thread's voluntary
 * context switches (one per time it went to sleep) over two seconds. prom-client's default
 * sampling (every 10 ms) gave ~200; at EVENT_LOOP_SAMPLE_MS (100 ms) ~20.
 */
t.test(
  'an idle process with the metrics on sleeps, it is not woken 100 times a second',
  { skip: existsSync('/proc/self/status') ? false : 'needs /proc (Linux)' },
  async (t) => {
    const program = `
    import { readFileSync } from 'node:fs';
    const { HttpMetrics } = await import(${JSON.stringify(METRICS_MODULE)});
    const metrics = new HttpMetrics(true);
    const sleeps = () => Number(/^voluntary_ctxt_switches:\\s+(\\d+)/m.exec(readFileSync('/proc/thread-self/status', 'utf8'))[1]);
    await new Promise((r) => setTimeout(r, 300));
    const before = sleeps();
    await new Promise((r) => setTimeout(r, 2000));
    console.log(sleeps() - before);
    void metrics;
    process.exit(0);
  `;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      program,
    ]);
    const sleeps = Number(stdout.trim());
    t.ok(Number.isInteger(sleeps) && sleeps > 0, `counted ${stdout.trim()} sleeps`);
    t.ok(sleeps < 80, `${sleeps} sleeps in 2 s (10 ms sampling gives ~200)`);
  },
);
