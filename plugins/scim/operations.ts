/**
 * SCIM endpoint operations, keyed by `org_id` and org-scoped (the
 * super-admin, or the organization's org admin; another organization is "not found" whether it
 * exists or not). The token leaves the server only in the answers of create and rotate.
 */
import type { RequestContext } from '../../core/context.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse } from '../../core/schema.js';
import type { ScimEndpoint as Endpoint } from './endpoints.js';
import { CreateScimEndpointResponse, ScimEndpoint, ScimEndpointRequest } from './schemas.js';

const endpoints = (ctx: RequestContext) => ctx.kernel.service('scim').endpoints;
const administered = (ctx: RequestContext, orgId: string) =>
  ctx.kernel.service('organizations').requireAdministered(ctx.principal, orgId);

export const endpointView = (e: Endpoint) => ({
  id: e.id,
  org_id: e.orgId,
  enabled: e.enabled,
  created_at: Math.floor(e.createdAt / 1000),
});

export const scimOperations: AnyOperation[] = [
  defineOperation({
    name: '_create_scim_endpoint',
    kind: 'mutation',
    access: 'org-admin',
    description: "Creates the organization's SCIM endpoint; the answer carries its bearer token, shown this once.",
    input: ScimEndpointRequest,
    output: CreateScimEndpointResponse,
    audit: { action: 'scim_endpoint.create', resourceType: 'scim_endpoint', resourceId: ({ input }) => input.org_id },
    handler: async (ctx, input) => {
      await administered(ctx, input.org_id);
      const { endpoint, token } = await endpoints(ctx).create(input.org_id);
      return { scim_endpoint: endpointView(endpoint), token };
    },
  }),
  defineOperation({
    name: '_rotate_scim_token',
    kind: 'mutation',
    access: 'org-admin',
    description: 'Replaces the SCIM token; the old one stops working at once. The new one is shown this once.',
    input: ScimEndpointRequest,
    output: CreateScimEndpointResponse,
    audit: {
      action: 'scim_endpoint.token_rotate',
      resourceType: 'scim_endpoint',
      resourceId: ({ input }) => input.org_id,
    },
    handler: async (ctx, input) => {
      await administered(ctx, input.org_id);
      const { endpoint, token } = await endpoints(ctx).rotate(input.org_id);
      return { scim_endpoint: endpointView(endpoint), token };
    },
  }),
  defineOperation({
    name: '_delete_scim_endpoint',
    kind: 'mutation',
    access: 'org-admin',
    description: "Deletes the organization's SCIM endpoint; its token stops working (provisioned users stay).",
    input: ScimEndpointRequest,
    output: MessageResponse,
    audit: { action: 'scim_endpoint.delete', resourceType: 'scim_endpoint', resourceId: ({ input }) => input.org_id },
    handler: async (ctx, input) => {
      await administered(ctx, input.org_id);
      await endpoints(ctx).remove(input.org_id);
      return { message: 'scim endpoint deleted successfully' };
    },
  }),
  defineOperation({
    name: '_scim_endpoint',
    kind: 'query',
    access: 'org-admin',
    description: "The organization's SCIM endpoint (never its token).",
    input: ScimEndpointRequest,
    output: ScimEndpoint,
    audit: { action: 'scim_endpoint.read', resourceType: 'scim_endpoint', resourceId: ({ input }) => input.org_id },
    rest: { method: 'POST' },
    handler: async (ctx, input) => {
      await administered(ctx, input.org_id);
      return endpointView(await endpoints(ctx).get(input.org_id));
    },
  }),
];
