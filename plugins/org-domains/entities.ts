/**
 * Verified organization domains: the normalized domain is
 * the primary key, so one domain belongs to exactly one organization, enforced by the database
 * atomically. `method` is how it was verified (`dns_txt` or `trusted_assert`).
 */
import { defineEntity } from '@mikro-orm/core';

export interface OrgDomainRow {
  domain: string;
  orgId: string;
  method: string;
  /** Unix milliseconds. */
  verifiedAt: number;
  createdAt: number;
}

export const OrgDomainEntity = defineEntity({
  name: 'LatchkeyOrgDomain',
  tableName: 'latchkey_org_domains',
  properties: (p) => ({
    domain: p.string().primary().length(253),
    orgId: p.string().length(64).fieldName('org_id').index(),
    method: p.string().length(32),
    verifiedAt: p.bigint('number').fieldName('verified_at'),
    createdAt: p.bigint('number').fieldName('created_at'),
  }),
});
