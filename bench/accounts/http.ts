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
  /** Varies each request (the i-th request gets these headers/body instead). */
  vary?: (i: number) => { headers?: Record<string, string>; body?: string };
}

interface SetupRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export async function httpRun(opts: HttpRun): Promise<LoadResult> {
  let i = 0;
  const vary = opts.vary;
  const requests = vary
    ? [
        {
          setupRequest: (req: SetupRequest): SetupRequest => {
            const v = vary(i++);
            return {
              ...req,
              headers: { ...req.headers, ...(v.headers ?? {}) },
              ...(v.body !== undefined ? { body: v.body } : {}),
            };
          },
        },
      ]
    : undefined;
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: opts.connections ?? CONNECTIONS,
    duration: opts.durationS ?? DURATION_S,
    // `requests` is part of autocannon's API, not of the shared type declaration in bench/.
    ...(requests ? { requests } : {}),
  } as Parameters<typeof autocannon>[0]);
  return { rps: result.requests.average, p99ms: result.latency.p99, errors: result.errors + result.non2xx };
}

/** Sequential POST with JSON; throws on a non-2xx answer (setup steps). */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`POST ${url}: ${r.status} ${text.slice(0, 200)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
