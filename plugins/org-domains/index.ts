/**
 * The org-domains plugin: verified email domains of organizations (the domain records and their
 * admin operations). A domain is proven with a DNS TXT challenge or
 * asserted by the super-admin; a verified domain only routes (home realm discovery), it never
 * decides membership or whether a login is allowed.
 *
 * `createOrgDomainsPlugin` takes the lookup timeout and the per-organization limit (tests use a
 * short timeout); `orgDomainsPlugin` is the default: about 5 s.
 */
import { definePlugin } from '../../core/plugin.js';
import { DEFAULT_DNS_TIMEOUT_MS, resolverProblem, txtLookup } from './dns-lookup.js';
import { OrgDomainEntity } from './entities.js';
import { ORG_DOMAIN_EVENTS, orgDomainOperations } from './operations.js';
import { DEFAULT_ORG_DOMAIN_LIMIT_PER_MINUTE } from './rate-limit.js';
import { createOrgDomainsService, type OrgDomainsService } from './service.js';

export type { OrgDomainsService, OrgDomainRecord, DomainChallenge, VerificationMethod } from './service.js';
export { DNS_VERIFICATION_FAILED, TAKEN_BY_ANOTHER_ORG } from './service.js';
export { normalizeDomain, guardRefusal } from './normalize.js';
export { ORG_DOMAIN_VERIFIED, ORG_DOMAIN_DELETED } from './operations.js';

export interface OrgDomainsOptions {
  /** The whole TXT lookup's time limit (default 5 s). */
  dnsTimeoutMs?: number;
  /** Challenges and verifications per organization and minute, each (default 20). */
  limitPerMinute?: number;
}

export function createOrgDomainsPlugin(options: OrgDomainsOptions = {}) {
  const timeoutMs = options.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
  return definePlugin<OrgDomainsService>({
    name: 'org-domains',
    description: 'Verified organization domains: DNS TXT challenges, trusted assertions, one owner per domain.',
    dependsOn: ['organizations'],
    flags: [
      {
        name: 'dns-resolver',
        type: 'list',
        default: [],
        description:
          'DNS servers for domain verification lookups, HOST:PORT comma-separated (default: the system resolvers).',
      },
    ],
    validateConfig: (config) => resolverProblem(config.list('dns-resolver')),
    entities: [OrgDomainEntity],
    operations: orgDomainOperations(options.limitPerMinute ?? DEFAULT_ORG_DOMAIN_LIMIT_PER_MINUTE),
    events: ORG_DOMAIN_EVENTS,
    setup(ctx) {
      const service = createOrgDomainsService(
        ctx.storage,
        ctx.memory,
        txtLookup(ctx.config.list('dns-resolver'), timeoutMs),
        ctx.logger,
      );
      // Deleting the organization frees its domains, in the deletion's transaction.
      ctx.hooks.on('organization.deleting', async ({ organization, em }) => {
        await em.nativeDelete(OrgDomainEntity, { orgId: organization.id });
      });
      return service;
    },
  });
}

export const orgDomainsPlugin = createOrgDomainsPlugin();
