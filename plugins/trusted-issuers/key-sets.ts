/**
 * Verification keys of trusted issuers: jose's remote key set (its own cache, cooldown and
 * timeout), fetched only through the guarded outbound client so a JWKS URL cannot reach private,
 * loopback or metadata addresses (docs/outbound.md). With `oidc_discovery` the JWKS URL is the
 * `jwks_uri` of the issuer's discovery document (RFC 8414 §3), read through the same client.
 */
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import type { GuardedFetch } from '../outbound/index.js';
import type { TrustedIssuerRecord } from './service.js';

const FETCH_TIMEOUT_MS = 5_000;
/** Keys are kept ten minutes; an unknown `kid` refreshes them at most every 30 seconds (jose's cooldown). */
const KEYS_MAX_AGE_MS = 10 * 60_000;
const DISCOVERY_TTL_MS = 10 * 60_000;
const MAX_DISCOVERY_BYTES = 64 * 1024;

export interface KeySets {
  of(issuer: TrustedIssuerRecord): Promise<JWTVerifyGetKey>;
}

export function createKeySets(fetch: GuardedFetch): KeySets {
  const sets = new LRUCache<string, JWTVerifyGetKey>({ max: 1_000 });
  const discovered = new LRUCache<string, string>({ max: 1_000, ttl: DISCOVERY_TTL_MS });

  async function discoverJwksUrl(issuerUrl: string): Promise<string> {
    const hit = discovered.get(issuerUrl);
    if (hit) return hit;
    const response = await fetch(`${issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`, {
      redirect: 'manual',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (response.status !== 200) throw new Error(`discovery answered ${response.status}`);
    const text = await response.text();
    if (text.length > MAX_DISCOVERY_BYTES) throw new Error('discovery document is too large');
    const doc = JSON.parse(text) as { issuer?: unknown; jwks_uri?: unknown };
    // RFC 8414 §3.3: the document's issuer must be the one it was fetched for.
    if (doc.issuer !== issuerUrl || typeof doc.jwks_uri !== 'string') throw new Error('discovery document is invalid');
    discovered.set(issuerUrl, doc.jwks_uri);
    return doc.jwks_uri;
  }

  return {
    async of(issuer) {
      const url =
        issuer.keySourceType === 'static_jwks_url' && issuer.jwksUrl
          ? issuer.jwksUrl
          : await discoverJwksUrl(issuer.issuerUrl);
      let set = sets.get(url);
      if (!set) {
        set = createRemoteJWKSet(new URL(url), {
          timeoutDuration: FETCH_TIMEOUT_MS,
          cacheMaxAge: KEYS_MAX_AGE_MS,
          [customFetch]: (input, init) => fetch(input, init),
        });
        sets.set(url, set);
      }
      return set;
    },
  };
}
