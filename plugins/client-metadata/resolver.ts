/**
 * Resolving a client ID metadata document client: the URL is checked (documentUrl, urlRefusal),
 * the document fetched through the guarded outbound client (private, loopback, link-local and
 * metadata addresses refused at connect time, the resolved address pinned, no redirects
 * followed, a deadline and a byte limit), its answer checked (200, a JSON media type), the
 * document validated (validate-document.ts) and kept for as long as its caching headers say,
 * within bounds (cache-ttl.ts). Concurrent requests for one URL share one fetch; a refusal is
 * kept briefly so that a failing host is not fetched on every authorization request.
 */
import { LRUCache } from 'lru-cache';
import type { ClientDocumentSource, OAuthClient } from '../client-registry/index.js';
import { findOutboundError, type OutboundService } from '../outbound/index.js';
import { documentTtlMs } from './cache-ttl.js';
import { documentUrl, urlRefusal } from './document-url.js';
import { clientFromDocument, DocumentRefusal } from './validate-document.js';

/** The draft's advice (§6.4): documents are small; a larger answer is refused unread. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 5_000;
const REFUSAL_TTL_MS = 10_000;

type Outcome = { client: OAuthClient } | { error: string };

export interface DocumentResolverOptions {
  outbound: OutboundService;
  allowedDomains: readonly string[];
}

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

function describe(err: unknown): string {
  const outbound = findOutboundError(err);
  if (outbound?.code === 'too_large') return `the client metadata document is larger than ${MAX_DOCUMENT_BYTES} bytes`;
  if (outbound) return `the client metadata document could not be fetched: ${outbound.message}`;
  if (err instanceof DocumentRefusal) return err.message;
  throw err;
}

export function createDocumentResolver(options: DocumentResolverOptions): ClientDocumentSource {
  const cache = new LRUCache<string, Outcome>({ max: 5_000, ttl: REFUSAL_TTL_MS });
  const pending = new Map<string, Promise<Outcome>>();

  async function fetchClient(clientId: string): Promise<Outcome> {
    try {
      const answer = await options.outbound.fetch(clientId, {
        headers: { accept: 'application/json' },
        timeoutMs: FETCH_TIMEOUT_MS,
        maxBytes: MAX_DOCUMENT_BYTES,
      });
      if (answer.status !== 200) {
        const redirect = answer.status >= 300 && answer.status < 400 ? '; redirects are not followed' : '';
        cache.set(clientId, refusal(`the client metadata document answered HTTP ${answer.status}${redirect}`));
      } else if (!JSON_TYPE.test(answer.headers['content-type'] ?? '')) {
        cache.set(clientId, refusal('the client metadata document is not served as application/json'));
      } else {
        cache.set(
          clientId,
          { client: clientFromDocument(clientId, answer.body) },
          { ttl: documentTtlMs(answer.headers) },
        );
      }
    } catch (err) {
      cache.set(clientId, refusal(describe(err)));
    }
    return cache.get(clientId) ?? refusal('the client metadata document could not be kept');
  }

  const refusal = (error: string): Outcome => ({ error });

  return {
    handles: (clientId) => documentUrl(clientId) !== null,
    async resolve(clientId) {
      const url = documentUrl(clientId);
      if (!url) return refusal('unknown client_id');
      const refused = urlRefusal(clientId, url, options.allowedDomains);
      if (refused) return refusal(refused);
      const kept = cache.get(clientId);
      if (kept) return kept;
      let inFlight = pending.get(clientId);
      if (!inFlight) {
        inFlight = fetchClient(clientId).finally(() => pending.delete(clientId));
        pending.set(clientId, inFlight);
      }
      return inFlight;
    },
  };
}
