/** The five admin operations of the admin group "Trusted issuers". */
import type { RequestContext } from '../../core/context.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse, pageOf, paginationOf } from '../../core/schema.js';
import {
  AddTrustedIssuerRequest,
  ListTrustedIssuersRequest,
  TrustedIssuer,
  TrustedIssuerRequest,
  TrustedIssuers,
  UpdateTrustedIssuerRequest,
} from './schemas.js';
import type { TrustedIssuerRecord } from './service.js';

export function trustedIssuerView(i: TrustedIssuerRecord) {
  return {
    id: i.id,
    service_account_id: i.serviceAccountId,
    name: i.name,
    issuer_url: i.issuerUrl,
    key_source_type: i.keySourceType,
    ...(i.jwksUrl !== null ? { jwks_url: i.jwksUrl } : {}),
    expected_aud: i.expectedAud,
    subject_claim: i.subjectClaim,
    allowed_subjects: i.allowedSubjects,
    issuer_type: i.issuerType,
    is_active: i.isActive,
    created_at: Math.floor(i.createdAt / 1000),
    updated_at: Math.floor(i.updatedAt / 1000),
  };
}

const store = (ctx: RequestContext) => ctx.kernel.service('trusted-issuers').store;
const audit = (action: string) => ({ action: `trusted_issuer.${action}`, resourceType: 'trusted_issuer' });

export const trustedIssuerOperations: AnyOperation[] = [
  defineOperation({
    name: '_add_trusted_issuer',
    kind: 'mutation',
    access: 'admin',
    description: 'Trusts an issuer to authenticate a client with signed assertions (RFC 7523).',
    input: AddTrustedIssuerRequest,
    output: TrustedIssuer,
    audit: { ...audit('create'), resourceId: ({ output }) => output?.id },
    handler: async (ctx, input) => trustedIssuerView(await store(ctx).add(input)),
  }),
  defineOperation({
    name: '_update_trusted_issuer',
    kind: 'mutation',
    access: 'admin',
    description: 'Changes a trusted issuer: name, JWKS URL, expected audience, active state, SPIFFE hint.',
    input: UpdateTrustedIssuerRequest,
    output: TrustedIssuer,
    audit: { ...audit('update'), resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => trustedIssuerView(await store(ctx).update(input)),
  }),
  defineOperation({
    name: '_delete_trusted_issuer',
    kind: 'mutation',
    access: 'admin',
    description: 'Stops trusting an issuer.',
    input: TrustedIssuerRequest,
    output: MessageResponse,
    audit: { ...audit('delete'), resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      await store(ctx).remove(input.id);
      return { message: 'trusted issuer deleted successfully' };
    },
  }),
  defineOperation({
    name: '_trusted_issuer',
    kind: 'query',
    access: 'admin',
    description: 'One trusted issuer.',
    input: TrustedIssuerRequest,
    output: TrustedIssuer,
    audit: { ...audit('read'), resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => trustedIssuerView(await store(ctx).get(input.id)),
  }),
  defineOperation({
    name: '_trusted_issuers',
    kind: 'query',
    access: 'admin',
    description: 'Trusted issuers, a page at a time, optionally those of one client.',
    input: ListTrustedIssuersRequest,
    output: TrustedIssuers,
    audit: audit('list'),
    rest: { method: 'POST' },
    handler: async (ctx, input) => {
      const page = pageOf(input.pagination);
      const { issuers, total } = await store(ctx).list(page.page, page.limit, input.service_account_id);
      return { pagination: paginationOf(page, total), trusted_issuers: issuers.map(trustedIssuerView) };
    },
  }),
];
