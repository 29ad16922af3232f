/**
 * The organization OIDC connection operations:
 * org-scoped (the super-admin, or that organization's org admin; another organization's
 * connection is "not found" whether it exists or not); the client secret is write-only.
 */
import type { RequestContext } from '../../core/context.js';
import { invalidArgument } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse } from '../../core/schema.js';
import { connectionNotFound, DEFAULT_SCOPES, type OidcConnection } from './connections.js';
import { checkedUrl } from './issuer-url.js';
import { callbackUrlOf } from './paths.js';
import {
  CreateOrgOIDCConnectionRequest,
  DeleteOrgOIDCConnectionRequest,
  GetOrgOIDCConnectionRequest,
  OrgOIDCConnection,
  UpdateOrgOIDCConnectionRequest,
} from './schemas.js';

const sso = (ctx: RequestContext) => ctx.kernel.service('org-sso');
const organizations = (ctx: RequestContext) => ctx.kernel.service('organizations');

/** The connection by its id or its organization's when the caller administers that organization; the same `not_found` otherwise. */
const administeredConnection = (ctx: RequestContext, by: { id?: string | undefined; orgId?: string | undefined }) =>
  organizations(ctx).administeredRecord(ctx.principal, by, sso(ctx).connections, connectionNotFound);

async function view(ctx: RequestContext, c: OidcConnection) {
  const org = await organizations(ctx).get(c.orgId);
  return {
    id: c.id,
    org_id: c.orgId,
    name: c.name,
    issuer_url: c.issuerUrl,
    sso_client_id: c.clientId,
    scopes: c.scopes,
    redirect_uri: c.redirectUri ?? callbackUrlOf(ctx.kernel.config, org?.name ?? ''),
    is_active: c.isActive,
  };
}

function checkedScopes(scopes: readonly string[] | undefined): string[] | undefined {
  if (scopes === undefined) return undefined;
  for (const s of scopes) if (!/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s)) throw invalidArgument('invalid scope');
  const unique = [...new Set(scopes)];
  // OIDC Core §3.1.2.1: an OpenID Connect request carries the openid scope.
  return unique.includes('openid') ? unique : ['openid', ...unique];
}

export const oidcConnectionOperations: AnyOperation[] = [
  defineOperation({
    name: '_create_org_oidc_connection',
    kind: 'mutation',
    access: 'org-admin',
    description: 'Connects the organization to its upstream OpenID Connect provider (the secret is stored sealed).',
    input: CreateOrgOIDCConnectionRequest,
    output: OrgOIDCConnection,
    audit: {
      action: 'org_oidc_connection.create',
      resourceType: 'org_oidc_connection',
      resourceId: ({ output }) => output?.id,
    },
    handler: async (ctx, input) => {
      await organizations(ctx).requireAdministered(ctx.principal, input.org_id);
      const created = await sso(ctx).connections.create(input.org_id, {
        name: input.name,
        issuerUrl: checkedUrl(input.issuer_url, 'issuer_url', true),
        clientId: input.client_id,
        clientSecret: input.client_secret,
        scopes: checkedScopes(input.scopes) ?? DEFAULT_SCOPES,
        redirectUri: input.redirect_uri === undefined ? null : checkedUrl(input.redirect_uri, 'redirect_uri'),
      });
      return view(ctx, created);
    },
  }),
  defineOperation({
    name: '_update_org_oidc_connection',
    kind: 'mutation',
    access: 'org-admin',
    description: 'Updates an organization OIDC connection; a new client secret replaces the stored one.',
    input: UpdateOrgOIDCConnectionRequest,
    output: OrgOIDCConnection,
    audit: {
      action: 'org_oidc_connection.update',
      resourceType: 'org_oidc_connection',
      resourceId: ({ input }) => input.id,
    },
    handler: async (ctx, input) => {
      await administeredConnection(ctx, { id: input.id });
      const scopes = checkedScopes(input.scopes);
      const updated = await sso(ctx).connections.update(input.id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.issuer_url !== undefined ? { issuerUrl: checkedUrl(input.issuer_url, 'issuer_url', true) } : {}),
        ...(input.client_id !== undefined ? { clientId: input.client_id } : {}),
        ...(input.client_secret !== undefined ? { clientSecret: input.client_secret } : {}),
        ...(scopes !== undefined ? { scopes } : {}),
        ...(input.redirect_uri !== undefined ? { redirectUri: checkedUrl(input.redirect_uri, 'redirect_uri') } : {}),
        ...(input.is_active !== undefined ? { isActive: input.is_active } : {}),
      });
      sso(ctx).forget(input.id);
      return view(ctx, updated);
    },
  }),
  defineOperation({
    name: '_delete_org_oidc_connection',
    kind: 'mutation',
    access: 'org-admin',
    description: 'Deletes an organization OIDC connection; users it created keep their accounts.',
    input: DeleteOrgOIDCConnectionRequest,
    output: MessageResponse,
    audit: {
      action: 'org_oidc_connection.delete',
      resourceType: 'org_oidc_connection',
      resourceId: ({ input }) => input.id,
    },
    handler: async (ctx, input) => {
      await administeredConnection(ctx, { id: input.id });
      await sso(ctx).connections.remove(input.id);
      sso(ctx).forget(input.id);
      return { message: 'oidc connection deleted successfully' };
    },
  }),
  defineOperation({
    name: '_org_oidc_connection',
    kind: 'query',
    access: 'org-admin',
    description: "An organization's OIDC connection, by its id or the organization's (never its secret).",
    input: GetOrgOIDCConnectionRequest,
    output: OrgOIDCConnection,
    audit: {
      action: 'org_oidc_connection.read',
      resourceType: 'org_oidc_connection',
      resourceId: ({ input, output }) => output?.id ?? input.id ?? input.org_id ?? '',
    },
    rest: { method: 'POST' },
    handler: async (ctx, input) => view(ctx, await administeredConnection(ctx, { id: input.id, orgId: input.org_id })),
  }),
];
