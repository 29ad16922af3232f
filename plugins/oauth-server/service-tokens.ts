/**
 * Service-account access tokens (client_credentials) have no user session; they are valid while
 * their signature, issuer and expiry hold and their client stays registered and active.
 */
import { decodeProtectedHeader, type JWTPayload } from 'jose';
import type { Services } from '../../core/services.js';
import { verifierOf } from '../tokens/index.js';

export const SERVICE_SUBJECT_PREFIX = 'service_account:';

/** Where the services come from: the kernel at request time, or a plugin's setup context. */
export interface ServiceLookup {
  service<K extends keyof Services>(name: K): Services[K];
}

export async function verifyServiceToken(kernel: ServiceLookup, token: string): Promise<JWTPayload | null> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return null;
  }
  const keys = kernel.service('keys');
  const candidates = keys.verifiers.filter((k) => !kid || k.kid === kid);
  const issuer = kernel.service('tokens').issuer;
  const now = Date.now() / 1000;
  for (const key of candidates) {
    const payload = await verifierOf(key, issuer)(token, now);
    if (!payload) continue;
    if (typeof payload.sub !== 'string' || !payload.sub.startsWith(SERVICE_SUBJECT_PREFIX)) return null;
    // Only an access token stands for the service account (defence in depth: no other kind is
    // signed for such a subject today, and one that ever is must not pass as a bearer token).
    if (payload.token_type !== 'access_token') return null;
    const client = await kernel.service('client-registry').findByClientId(String(payload.client_id ?? ''));
    if (!client || !client.isActive) return null;
    return payload;
  }
  return null;
}
