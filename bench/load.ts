/** Load helpers: autocannon for HTTP, a closed-loop client for gRPC; both bounded in time. */
import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p99ms: number;
  errors: number;
}

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

export async function httpLoad(opts: { url: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: CONNECTIONS,
    duration: DURATION_S,
  });
  return { rps: result.requests.average, p99ms: result.latency.p99, errors: result.errors + result.non2xx };
}

/** Runs `call` from `concurrency` loops for the duration; returns throughput and p99. */
export async function closedLoop(call: () => Promise<unknown>, concurrency = CONNECTIONS, durationS = DURATION_S): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + durationS * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await call();
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p99ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0, errors };
}
