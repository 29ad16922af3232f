/**
 * Home realm discovery: an email's domain, normalized as
 * domain writes are, to the verified domain's organization, to its preferred active SSO
 * connection. The answer never names the organization; a verified domain without a connection,
 * a disabled organization and no match all answer `connection: null`.
 */
import { invalidArgument } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';
import { countDiscovery } from './rate-limit.js';
import type { OrganizationsService } from '../organizations/index.js';
import type { OrgDomainsService } from '../org-domains/index.js';
import { preferredConnection, type DiscoveredConnection, type OrgSsoConnectionSource } from './connections.js';
import { emailDomain } from './email-domain.js';

export interface OrgDiscoveryService {
  /**
   * `invalid_argument` ("invalid email") for a malformed address, with no detail. With `ip`, the
   * call counts against that client's bucket first (`resource_exhausted` beyond it): the hosted
   * login page's email-first step, whose form posts the route's limit does not see.
   */
  discover(email: unknown, ip?: string): Promise<{ connection: DiscoveredConnection | null }>;
}

declare module '../../core/services.js' {
  interface Services {
    'org-discovery': OrgDiscoveryService;
  }
}

export const MALFORMED_EMAIL = 'invalid email';

/**
 * `sso` is asked at each call: the SSO plugin may be set up after this one, or not be in the
 * build at all.
 */
export function createOrgDiscoveryService(
  domains: OrgDomainsService,
  organizations: OrganizationsService,
  sso: () => OrgSsoConnectionSource | undefined,
  limit: { memory: MemoryStore; perMinute: number },
): OrgDiscoveryService {
  return {
    async discover(email, ip) {
      if (ip !== undefined) await countDiscovery(limit.memory, ip, limit.perMinute);
      const domain = emailDomain(email);
      if (!domain) throw invalidArgument(MALFORMED_EMAIL);
      const record = await domains.get(domain);
      const source = sso();
      if (!record || !source) return { connection: null };
      const org = await organizations.get(record.orgId);
      if (!org || !org.enabled) return { connection: null };
      const connections = await source.activeConnections(org.id);
      return { connection: preferredConnection(connections) };
    },
  };
}
