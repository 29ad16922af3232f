/**
 * Organization domain operations. Org-scoped: the
 * super-admin, or the organization's org admin; `_add_verified_org_domain` is the super-admin's
 * alone. A domain or organization the caller does not administer is refused exactly as a missing
 * one. Verification is audited with its method (`dns_txt` or `trusted_assert`), never the token.
 */
import type { RequestContext } from '../../core/context.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { ServiceError, invalidArgument, notFound } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse, pageOf, paginationOf } from '../../core/schema.js';
import { countOrgAttempt } from './rate-limit.js';
import {
  DeleteOrgDomainRequest,
  ListOrgDomainsRequest,
  OrgDomain,
  OrgDomainChallenge,
  OrgDomainRequest,
  OrgDomains,
} from './schemas.js';
import type { OrgDomainRecord, VerificationMethod } from './service.js';

export const ORG_DOMAIN_VERIFIED = 'org_domain.verified';
export const ORG_DOMAIN_DELETED = 'org_domain.deleted';
export const ORG_DOMAIN_EVENTS = [ORG_DOMAIN_VERIFIED, ORG_DOMAIN_DELETED];

const domains = (ctx: RequestContext) => ctx.kernel.service('org-domains');
const orgs = (ctx: RequestContext) => ctx.kernel.service('organizations');
const domainNotFound = () => notFound('domain not found');

export function domainView(r: OrgDomainRecord) {
  return {
    domain: r.domain,
    org_id: r.orgId,
    verified_at: Math.floor(r.verifiedAt / 1000),
    created_at: Math.floor(r.createdAt / 1000),
  };
}

/**
 * The event of a verification (and so its audit record): who, from where, which domain and how;
 * stored by the commit that stores the verified domain.
 */
const verified =
  (ctx: RequestContext, method: VerificationMethod) =>
  (unit: UnitOfWork, record: OrgDomainRecord): Promise<void> =>
    ctx.kernel.events.emitWithin(unit, ORG_DOMAIN_VERIFIED, {
      actor: ctx.principal?.subject ?? 'unknown',
      actor_kind: ctx.principal?.kind ?? 'unknown',
      ip: ctx.ip,
      user_agent: ctx.header('user-agent') ?? '',
      org_id: record.orgId,
      domain: record.domain,
      method,
    });

export function orgDomainOperations(limitPerMinute: number): AnyOperation[] {
  return [
    defineOperation({
      name: '_request_org_domain',
      kind: 'mutation',
      access: 'org-admin',
      description: 'Starts a DNS TXT challenge for a domain; publish record_value at record_name, then verify.',
      input: OrgDomainRequest,
      output: OrgDomainChallenge,
      audit: {
        action: 'org_domain.request',
        resourceType: 'org_domain',
        resourceId: ({ input, output }) => output?.domain ?? input.domain,
        metadata: ({ input }) => ({ org_id: input.org_id }),
      },
      handler: async (ctx, input) => {
        await orgs(ctx).requireAdministered(ctx.principal, input.org_id);
        await countOrgAttempt(ctx.kernel.memory, 'request', input.org_id, limitPerMinute);
        const c = await domains(ctx).request(input.org_id, input.domain);
        return { domain: c.domain, record_type: c.recordType, record_name: c.recordName, record_value: c.recordValue };
      },
    }),
    defineOperation({
      name: '_verify_org_domain',
      kind: 'mutation',
      access: 'org-admin',
      description: 'Looks up the challenge TXT record; an exact match verifies the domain for the organization.',
      input: OrgDomainRequest,
      output: OrgDomain,
      audit: {
        action: 'org_domain.verify',
        resourceType: 'org_domain',
        resourceId: ({ input, output }) => output?.domain ?? input.domain,
        metadata: ({ input }) => ({ org_id: input.org_id, method: 'dns_txt' }),
        // A failed verification is a security event too (a domain claim that did not hold).
        failures: true,
      },
      handler: async (ctx, input) => {
        await orgs(ctx).requireAdministered(ctx.principal, input.org_id);
        await countOrgAttempt(ctx.kernel.memory, 'verify', input.org_id, limitPerMinute);
        const { record } = await domains(ctx).verify(input.org_id, input.domain, {
          within: verified(ctx, 'dns_txt'),
        });
        return domainView(record);
      },
    }),
    defineOperation({
      name: '_add_verified_org_domain',
      kind: 'mutation',
      access: 'org-admin',
      description: 'Records a domain as verified without DNS (trusted assertion; super-admin only).',
      input: OrgDomainRequest,
      output: OrgDomain,
      audit: {
        action: 'org_domain.verify',
        resourceType: 'org_domain',
        resourceId: ({ input, output }) => output?.domain ?? input.domain,
        metadata: ({ input }) => ({ org_id: input.org_id, method: 'trusted_assert' }),
      },
      handler: async (ctx, input) => {
        // An org admin's trusted assertion is rejected.
        if (ctx.principal?.kind !== 'admin') throw new ServiceError('permission_denied', 'super-admin only');
        await orgs(ctx).requireAdministered(ctx.principal, input.org_id);
        const { record } = await domains(ctx).assert(input.org_id, input.domain, {
          within: verified(ctx, 'trusted_assert'),
        });
        return domainView(record);
      },
    }),
    defineOperation({
      name: '_delete_org_domain',
      kind: 'mutation',
      access: 'org-admin',
      description: 'Removes a verified domain (only the routing hint: members and access stay).',
      input: DeleteOrgDomainRequest,
      output: MessageResponse,
      audit: { action: 'org_domain.delete', resourceType: 'org_domain', resourceId: ({ input }) => input.domain },
      handler: async (ctx, input) => {
        const domain = domains(ctx).normalize(input.domain);
        if (!domain) throw invalidArgument('invalid domain');
        // The owning organization comes from the row; a domain of another organization is "not found".
        const record = await domains(ctx).get(domain);
        if (!record || !orgs(ctx).administers(ctx.principal, record.orgId)) throw domainNotFound();
        const removed = await domains(ctx).remove(domain, {
          within: (unit) =>
            ctx.kernel.events.emitWithin(unit, ORG_DOMAIN_DELETED, {
              actor: ctx.principal?.subject ?? 'unknown',
              actor_kind: ctx.principal?.kind ?? 'unknown',
              ip: ctx.ip,
              org_id: record.orgId,
              domain,
            }),
        });
        if (!removed) throw domainNotFound();
        return { message: 'domain deleted successfully' };
      },
    }),
    defineOperation({
      name: '_org_domains',
      kind: 'query',
      access: 'org-admin',
      description: "An organization's verified domains, a page at a time.",
      input: ListOrgDomainsRequest,
      output: OrgDomains,
      audit: { action: 'org_domain.list', resourceType: 'organization', resourceId: ({ input }) => input.org_id },
      rest: { method: 'POST' },
      handler: async (ctx, input) => {
        await orgs(ctx).requireAdministered(ctx.principal, input.org_id);
        const page = pageOf(input.pagination);
        const { domains: rows, total } = await domains(ctx).list(input.org_id, page.page, page.limit);
        return { pagination: paginationOf(page, total), org_domains: rows.map(domainView) };
      },
    }),
  ];
}
