/**
 * The guarded outbound client (docs/outbound.md): every fetch of a URL that a user
 * or admin supplied (webhook endpoints, client metadata documents, remote JWKS) goes through it.
 * Steps: the URL must be absolute http(s); an IP-literal host is checked before anything else;
 * the connection is made by an undici Agent whose connector checks and pins the resolved address
 * (guarded-connector.ts); redirects are never followed (a 3xx is answered as it came, since its
 * target would escape the check's intent on the next hop); the whole exchange has a deadline and
 * the body a byte limit.
 */
import { Agent, fetch as undiciFetch, request, type Dispatcher } from 'undici';
import type { AddressPolicy } from './address-policy.js';
import { findOutboundError, OutboundError } from './errors.js';
import { guardedConnector, systemResolver, type Resolver } from './guarded-connector.js';

export interface OutboundRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A WHATWG fetch that connects through the guard (for jose's `customFetch`, openid-client's `customFetch`). */
export type GuardedFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface OutboundService {
  fetch(url: string, init?: OutboundRequestInit): Promise<OutboundResponse>;
  /** The same guard as a fetch function; redirects are answered as they came (`redirect: 'manual'`). */
  readonly guardedFetch: GuardedFetch;
  readonly policy: AddressPolicy;
}

export interface OutboundClientOptions {
  policy: AddressPolicy;
  /** Default: the system resolver. Tests pass one that asks a local DNS server. */
  resolve?: Resolver;
  defaultTimeoutMs?: number;
  defaultMaxBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;

export interface OutboundClient extends OutboundService {
  close(): Promise<void>;
}

/** The URL when it is absolute http(s) without credentials; an `invalid_request` error otherwise. */
export function outboundUrl(text: string | URL): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundError('invalid_request', 'the URL is not absolute');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid_request', 'the URL must use http or https');
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundError('invalid_request', 'the URL must not hold credentials');
  }
  return url;
}

/** The guard's check of an IP-literal host, made before the request is handed to undici. */
function checkLiteral(url: URL, policy: AddressPolicy): void {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!/^[\d.]+$/.test(host) && !host.includes(':')) return;
  const refusal = policy.refusal(host);
  if (refusal) throw new OutboundError('address_refused', refusal);
}

export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  const { policy } = options;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const defaultMaxBytes = options.defaultMaxBytes ?? DEFAULT_MAX_BYTES;
  const agent: Dispatcher = new Agent({
    connect: guardedConnector(policy, options.resolve ?? systemResolver, defaultTimeoutMs),
    // One resolution per connection: a kept connection is pinned to the address it was made to.
    keepAliveTimeout: 4_000,
  });

  async function fetchGuarded(text: string, init: OutboundRequestInit = {}): Promise<OutboundResponse> {
    const url = outboundUrl(text);
    checkLiteral(url, policy);
    const timeoutMs = init.timeoutMs ?? defaultTimeoutMs;
    const maxBytes = init.maxBytes ?? defaultMaxBytes;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const answer = await request(url, {
        dispatcher: agent,
        method: (init.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod,
        headers: init.headers,
        body: init.body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          answer.body.destroy();
          throw new OutboundError('too_large', `the answer is longer than ${maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
      return {
        status: answer.statusCode,
        headers: flatHeaders(answer.headers),
        body: Buffer.concat(chunks).toString('utf8'),
      };
    } catch (err) {
      throw outboundErrorOf(err, signal, timeoutMs);
    }
  }

  const guardedFetch: GuardedFetch = async (input, init) => {
    const url = outboundUrl(input);
    checkLiteral(url, policy);
    try {
      const answer = await undiciFetch(url, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        redirect: 'manual',
        dispatcher: agent,
      });
      return answer as unknown as Response;
    } catch (err) {
      throw findOutboundError(err) ?? err;
    }
  };

  return {
    policy,
    fetch: fetchGuarded,
    guardedFetch,
    close: () => agent.close(),
  };
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function outboundErrorOf(err: unknown, signal: AbortSignal, timeoutMs: number): OutboundError {
  const own = findOutboundError(err);
  if (own) return own;
  const code = (err as { code?: unknown }).code;
  if (
    signal.aborted ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return new OutboundError('timeout', `no answer within ${timeoutMs} ms`, { cause: err });
  }
  if (code === 'UND_ERR_INVALID_ARG' || err instanceof TypeError) {
    return new OutboundError('invalid_request', `the request is invalid: ${(err as Error).message}`, { cause: err });
  }
  const reason = typeof code === 'string' ? code : err instanceof Error ? err.message : 'error';
  return new OutboundError('network', `the request failed (${reason})`, { cause: err });
}
