/**
 * Per-organization limits on challenges and verifications (`_request_org_domain`
 * and `_verify_org_domain` are rate limited per org): fixed one-minute windows counted in the
 * memory store, so every node shares them. Each verification costs a DNS query.
 */
import { ServiceError } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';

export const DEFAULT_ORG_DOMAIN_LIMIT_PER_MINUTE = 20;
const WINDOW_MS = 60_000;

export async function countOrgAttempt(
  memory: MemoryStore,
  operation: 'request' | 'verify',
  orgId: string,
  limit: number,
): Promise<void> {
  const count = await memory.increment(`org-domain:rate:${operation}:${orgId}`, WINDOW_MS);
  if (count > limit) {
    throw new ServiceError('resource_exhausted', 'too many domain verification attempts for this organization', {
      'retry-after': String(WINDOW_MS / 1000),
    });
  }
}
