/** The process metrics: what they report, and that gathering them does not keep waking the process. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import t from 'tap';
import { EVENT_LOOP_SAMPLE_MS, HttpMetrics } from '../../../transports/http/metrics.js';

const METRICS_MODULE = new URL('../../../transports/http/metrics.ts', import.meta.url).href;

t.test('the event-loop delay percentiles are still reported', async (t) => {
  const metrics = new HttpMetrics(true);
  await new Promise((resolve) => setTimeout(resolve, 3 * EVENT_LOOP_SAMPLE_MS));
  const text = await metrics.render();
  for (const name of ['nodejs_eventloop_lag_p50_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds']) {
    t.match(text, new RegExp(`^${name} \\d`, 'm'), `${name} has a value`);
  }
});

/**
 * An idle process with the metrics on, counted by the kernel: its main thread's voluntary
 * context switches (one per time it went to sleep) over two seconds. prom-client's default
 * sampling (every 10 ms) gave ~200; at EVENT_LOOP_SAMPLE_MS (100 ms) ~20.
 */
t.test('an idle process with the metrics on sleeps, it is not woken 100 times a second', { skip: existsSync('/proc/self/status') ? false : 'needs /proc (Linux)' }, async (t) => {
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
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program]);
  const sleeps = Number(stdout.trim());
  t.ok(Number.isInteger(sleeps) && sleeps > 0, `counted ${stdout.trim()} sleeps`);
  t.ok(sleeps < 80, `${sleeps} sleeps in 2 s (10 ms sampling gives ~200)`);
});
