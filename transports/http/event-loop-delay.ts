/**
 * The event-loop delay gauges (`nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds`,
 * the names prom-client's default metrics use), from a histogram sampling every `sampleMs`.
 *
 * Why not prom-client's own: it samples every 10 ms by default, a timer that woke the event loop
 * 100 times a second, busy or idle (metrics.ts EVENT_LOOP_SAMPLE_MS has the measurement), and it
 * reports Node's histogram as it is. Node records the whole time between two firings of the
 * sampling timer, so at rest its values are the sampling interval itself (~10 ms at the default,
 * ~100 ms at ours), not the delay. These gauges subtract the interval: what they show is how late
 * the event loop was, 0 when on time, whatever the sampling interval.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

const STATS = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const;
type Stat = (typeof STATS)[number];

const nameOf = (stat: Stat) => `nodejs_eventloop_lag_${stat}_seconds`;

export class EventLoopDelay {
  private readonly histogram: ReturnType<typeof monitorEventLoopDelay>;
  private readonly gauges = new Map<Stat, Gauge>();

  /** Replaces any gauges of these names already in `registry` (prom-client's defaults). */
  constructor(
    registry: Registry,
    private readonly sampleMs: number,
  ) {
    this.histogram = monitorEventLoopDelay({ resolution: sampleMs });
    this.histogram.enable();
    for (const stat of STATS) {
      registry.removeSingleMetric(nameOf(stat));
      const help =
        stat === 'stddev'
          ? 'The standard deviation of the event loop delay in seconds.'
          : `The ${stat} event loop delay in seconds, beyond the sampling interval.`;
      this.gauges.set(stat, new Gauge({ name: nameOf(stat), help, registers: [registry] }));
    }
  }

  /** Sets the gauges from the samples since the last call, and starts afresh (once per scrape). */
  update(): void {
    const h = this.histogram;
    // Beyond the scheduled interval, in seconds; no samples since the last scrape reads as 0.
    const late = (ns: number) => (h.count === 0 ? 0 : Math.max(0, ns / 1e9 - this.sampleMs / 1000));
    const values: Record<Stat, number> = {
      min: late(h.min),
      max: late(h.max),
      mean: late(h.mean),
      stddev: h.count === 0 ? 0 : h.stddev / 1e9,
      p50: late(h.percentile(50)),
      p90: late(h.percentile(90)),
      p99: late(h.percentile(99)),
    };
    for (const stat of STATS) this.gauges.get(stat)?.set(values[stat]);
    h.reset();
  }
}
