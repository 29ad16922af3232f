/**
 * The HTTP request counter and duration histogram, kept as plain numbers and written out in the
 * Prometheus text format (exposition format 0.0.4) only when /metrics is scraped. Recording runs
 * on every request, so it is a few additions on a series found once per route; prom-client's
 * label-hashing children cost several times more and are kept for the process metrics only.
 */

/** Upper bounds in seconds, as the histogram's `le` labels. */
export const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5] as const;

const REQUESTS = 'latchkey_http_requests_total';
const DURATION = 'latchkey_http_request_duration_seconds';

/** One (method, route) pair: its status counts and its duration histogram. */
export class RequestSeries {
  /** Per-bucket counts, not cumulative (summed when written). */
  private readonly buckets = new Float64Array(DURATION_BUCKETS.length);
  private sum = 0;
  private count = 0;
  private readonly statuses = new Map<number, number>();

  constructor(
    readonly method: string,
    readonly route: string,
  ) {}

  record(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    this.count++;
    this.sum += seconds;
    for (let i = 0; i < DURATION_BUCKETS.length; i++) {
      if (seconds <= DURATION_BUCKETS[i]) {
        this.buckets[i]++;
        return;
      }
    }
  }

  /** Lines of the counter, one per status seen. */
  counterLines(): string[] {
    const labels = `method="${escapeLabel(this.method)}",route="${escapeLabel(this.route)}"`;
    return [...this.statuses].map(([status, n]) => `${REQUESTS}{${labels},status="${status}"} ${n}`);
  }

  /** Lines of the histogram: cumulative buckets, +Inf, sum and count. */
  histogramLines(): string[] {
    const labels = `method="${escapeLabel(this.method)}",route="${escapeLabel(this.route)}"`;
    const lines: string[] = [];
    let cumulative = 0;
    for (let i = 0; i < DURATION_BUCKETS.length; i++) {
      cumulative += this.buckets[i];
      lines.push(`${DURATION}_bucket{le="${DURATION_BUCKETS[i]}",${labels}} ${cumulative}`);
    }
    lines.push(
      `${DURATION}_bucket{le="+Inf",${labels}} ${this.count}`,
      `${DURATION}_sum{${labels}} ${this.sum}`,
      `${DURATION}_count{${labels}} ${this.count}`,
    );
    return lines;
  }
}

/** Every series of one server, written as the two metric families. */
export class RequestSeriesSet {
  private readonly all = new Map<string, RequestSeries>();

  /** The series of a (method, route) pair, created on first use; callers keep it. */
  series(method: string, route: string): RequestSeries {
    const key = `${method} ${route}`;
    let s = this.all.get(key);
    if (!s) {
      s = new RequestSeries(method, route);
      this.all.set(key, s);
    }
    return s;
  }

  render(): string {
    const list = [...this.all.values()];
    return [
      `# HELP ${REQUESTS} HTTP requests by method, route and status.`,
      `# TYPE ${REQUESTS} counter`,
      ...list.flatMap((s) => s.counterLines()),
      `# HELP ${DURATION} HTTP request duration by method and route.`,
      `# TYPE ${DURATION} histogram`,
      ...list.flatMap((s) => s.histogramLines()),
      '',
    ].join('\n');
  }
}

/** Label values escape backslash, double quote and newline (exposition format). */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
