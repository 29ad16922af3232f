/** Load helpers: autocannon for HTTP, h2load or a closed-loop client for gRPC; all bounded in time. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p99ms: number;
  errors: number;
  /** The measured server's CPU (user + system, every thread) per request, when measured. */
  cpuUs?: number;
  /** The machine's steal share while it ran (machine.ts stealMeter), when measured. */
  stealShare?: number;
  /** Each round's rate, in round order, when the result is a mean over interleaved rounds. */
  roundRps?: number[];
}

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

export async function httpLoad(opts: {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  durationS?: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: CONNECTIONS,
    duration: opts.durationS ?? DURATION_S,
  });
  return { rps: result.requests.average, p99ms: result.latency.p99, errors: result.errors + result.non2xx };
}

/** Runs `call` from `concurrency` loops for the duration; returns throughput and p99. */
export async function closedLoop(
  call: () => Promise<unknown>,
  concurrency = CONNECTIONS,
  durationS = DURATION_S,
): Promise<LoadResult> {
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

/**
 * gRPC unary load from h2load (nghttp2-client), a separate native process: 4 HTTP/2 connections
 * with 10 concurrent streams each, the way gRPC clients multiplex calls over few channels. Returns
 * null when h2load is not installed. `message` is the serialized request (the 5-byte gRPC frame
 * header is added here). h2load reports the mean request time, not a p99: the row says so.
 */
export async function grpcLoad(opts: {
  address: string;
  path: string;
  message?: Buffer;
}): Promise<(LoadResult & { meanMs: number }) | null> {
  const message = opts.message ?? Buffer.alloc(0);
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-h2load-'));
  try {
    const file = join(dir, 'request.bin');
    await writeFile(file, frame);
    const args = [
      '-D',
      String(DURATION_S),
      '-c',
      '4',
      '-m',
      '10',
      '-t',
      '1',
      '-d',
      file,
      '-H',
      'content-type: application/grpc',
      '-H',
      'te: trailers',
      `http://${opts.address}${opts.path}`,
    ];
    const out = await new Promise<string | null>((resolve) =>
      execFile('h2load', args, { timeout: (DURATION_S + 30) * 1000 }, (err, stdout) =>
        resolve(err && !stdout ? null : stdout),
      ),
    );
    if (out === null) return null;
    const rps = Number(/([\d.]+) req\/s/.exec(out)?.[1] ?? Number.NaN);
    const done = /requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded/.exec(out);
    const mean = /time for request:\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)/.exec(out);
    const meanMs = mean ? Number(mean[1]) * (mean[2] === 'us' ? 0.001 : mean[2] === 's' ? 1000 : 1) : Number.NaN;
    return { rps, p99ms: Number.NaN, meanMs, errors: done ? Number(done[1]) - Number(done[2]) : 0 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * HTTP load from wrk (Debian `wrk`), a native load generator in a process of its own: a closed
 * loop of `connections` keep-alive connections, one request in flight on each. Its CPU per
 * request is a small fraction of a Node client's, which matters where the client shares the
 * cores with a CPU-bound server (the login rows). Requests per second are completed requests over
 * the run's duration (calls still in flight at the end are not counted, a bias against the
 * server). Returns null when wrk is not installed.
 */
export async function wrkLoad(opts: {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Bodies taken in turn, one per request (instead of `body`): logins spread over many accounts. */
  bodies?: readonly string[];
  connections: number;
  durationS: number;
}): Promise<LoadResult | null> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-wrk-'));
  try {
    const script = join(dir, 'request.lua');
    const lines = [`wrk.method = ${JSON.stringify(opts.method)}`];
    // A Lua long string at a bracket level no body contains.
    const lua = (text: string) => `[==[${text}]==]`;
    if (opts.body !== undefined) lines.push(`wrk.body = ${lua(opts.body)}`);
    for (const [k, v] of Object.entries(opts.headers ?? {}))
      lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
    if (opts.bodies?.length) {
      // Every request formatted once, in init (after wrk has added the Host header), so a turn
      // costs the client a table index, not a string build.
      lines.push('local bodies = {}', 'local requests = {}', 'local turn = 0');
      for (const b of opts.bodies) lines.push(`bodies[#bodies + 1] = ${lua(b)}`);
      lines.push(
        'function init(args)',
        '  for i, b in ipairs(bodies) do requests[i] = wrk.format(nil, nil, nil, b) end',
        'end',
        'function request()',
        '  turn = turn % #requests + 1',
        '  return requests[turn]',
        'end',
      );
    }
    await writeFile(script, `${lines.join('\n')}\n`);
    const args = [
      '-t',
      '1',
      '-c',
      String(opts.connections),
      '-d',
      `${opts.durationS}s`,
      '--timeout',
      '10s',
      '--latency',
      '-s',
      script,
      opts.url,
    ];
    const out = await new Promise<string | null>((resolve) =>
      execFile('wrk', args, { timeout: (opts.durationS + 30) * 1000 }, (err, stdout) =>
        resolve(err && !stdout ? null : stdout),
      ),
    );
    if (out === null) return null;
    const rate = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1];
    // wrk cut short (timeout, crash) prints no summary: a failed run, not a row of NaN.
    if (rate === undefined) throw new Error(`wrk printed no summary: ${out.slice(0, 300)}`);
    const rps = Number(rate);
    const p99 = /\s99%\s+([\d.]+)(us|ms|s)\b/.exec(out);
    const p99ms = p99 ? Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1) : Number.NaN;
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
    const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
    return { rps, p99ms, errors: non2xx + socketErrors };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
