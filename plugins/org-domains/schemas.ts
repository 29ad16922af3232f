/** Schemas of the organization domain operations (the wire types OrgDomain, OrgDomainChallenge). */
import { Id, InputObject, Int64, OutputObject, Pagination, PaginationRequest, Str, Type } from '../../core/schema.js';

const domain = () =>
  Str({ max: 300, min: 1, description: 'A domain name; Unicode or punycode, no scheme, path or port.' });

export const OrgDomainRequest = InputObject('OrgDomainRequest', { org_id: Id(), domain: domain() });

export const DeleteOrgDomainRequest = InputObject('DeleteOrgDomainRequest', { domain: domain() });

export const ListOrgDomainsRequest = InputObject('ListOrgDomainsRequest', {
  org_id: Id(),
  pagination: Type.Optional(PaginationRequest),
});

export const OrgDomainChallenge = OutputObject('OrgDomainChallenge', {
  domain: Type.String(),
  record_type: Type.String(),
  record_name: Type.String(),
  record_value: Type.String(),
});

export const OrgDomain = OutputObject('OrgDomain', {
  domain: Type.String(),
  org_id: Type.String(),
  verified_at: Int64(),
  created_at: Int64(),
});

export const OrgDomains = OutputObject('OrgDomains', {
  pagination: Pagination,
  org_domains: Type.Array(OrgDomain),
});
