/** HTTP load for the accounts bench: autocannon with an explicit duration (interleaved runs are short). */
import autocannon from 'autocannon';
import { CONNECTIONS, DURATION_S, type LoadResult } from '../load.js';

export interface HttpRun {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationS?: number;
}

export async function httpRun(opts: HttpRun): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: opts.connections ?? CONNECTIONS,
    duration: opts.durationS ?? DURATION_S,
  });
  return { rps: result.requests.average, p99ms: result.latency.p99, errors: result.errors + result.non2xx };
}

/** Sequential POST with JSON; throws on a non-2xx answer (setup steps). */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`POST ${url}: ${r.status} ${text.slice(0, 200)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
