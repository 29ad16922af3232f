/**
 * Admin operations of the client registry: the secret leaves the
 * server only in the answers of `_create_client` and `_rotate_client_secret`.
 */
import type { RequestContext } from '../../core/context.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse, pageOf, paginationOf } from '../../core/schema.js';
import {
  Client,
  ClientRequest,
  Clients,
  CreateClientRequest,
  CreateClientResponse,
  ListClientsRequest,
  UpdateClientRequest,
} from './schemas.js';
import type { OAuthClient } from './service.js';

export function clientView(c: OAuthClient) {
  return {
    id: c.id,
    client_id: c.clientId,
    name: c.name,
    ...(c.description !== null ? { description: c.description } : {}),
    allowed_scopes: c.allowedScopes,
    redirect_uris: c.redirectUris,
    post_logout_redirect_uris: c.postLogoutRedirectUris,
    is_active: c.isActive,
    created_at: Math.floor(c.createdAt / 1000),
    updated_at: Math.floor(c.updatedAt / 1000),
  };
}

const registry = (ctx: RequestContext) => ctx.kernel.service('client-registry');

export const clientOperations: AnyOperation[] = [
  defineOperation({
    name: '_create_client',
    kind: 'mutation',
    access: 'admin',
    description: 'Registers a client; the answer carries its secret, shown this once.',
    input: CreateClientRequest,
    output: CreateClientResponse,
    audit: { action: 'client.create', resourceType: 'client', resourceId: ({ output }) => output?.client.id },
    handler: async (ctx, input) => {
      const { client, secret } = await registry(ctx).create(input);
      return { client: clientView(client), client_secret: secret };
    },
  }),
  defineOperation({
    name: '_update_client',
    kind: 'mutation',
    access: 'admin',
    description: 'Changes a client: name, description, allowed scopes, redirect URIs, active state.',
    input: UpdateClientRequest,
    output: Client,
    audit: { action: 'client.update', resourceType: 'client', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => clientView(await registry(ctx).update(input)),
  }),
  defineOperation({
    name: '_delete_client',
    kind: 'mutation',
    access: 'admin',
    description: 'Deletes a client.',
    input: ClientRequest,
    output: MessageResponse,
    audit: { action: 'client.delete', resourceType: 'client', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      await registry(ctx).remove(input.id);
      await ctx.kernel.hooks.run('client.deleted', { id: input.id });
      return { message: 'client deleted successfully' };
    },
  }),
  defineOperation({
    name: '_rotate_client_secret',
    kind: 'mutation',
    access: 'admin',
    description: 'Replaces the client secret; the old one stops working at once.',
    input: ClientRequest,
    output: CreateClientResponse,
    audit: { action: 'client.secret_rotate', resourceType: 'client', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      const { client, secret } = await registry(ctx).rotateSecret(input.id);
      return { client: clientView(client), client_secret: secret };
    },
  }),
  defineOperation({
    name: '_client',
    kind: 'query',
    access: 'admin',
    description: 'One client (without its secret).',
    input: ClientRequest,
    output: Client,
    audit: { action: 'client.read', resourceType: 'client', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => clientView(await registry(ctx).get(input.id)),
  }),
  defineOperation({
    name: '_clients',
    kind: 'query',
    access: 'admin',
    description: 'Registered clients, a page at a time (without secrets).',
    input: ListClientsRequest,
    output: Clients,
    audit: { action: 'client.list', resourceType: 'client' },
    rest: { method: 'POST' },
    handler: async (ctx, input) => {
      const page = pageOf(input.pagination);
      const { clients, total } = await registry(ctx).list(page.page, page.limit);
      return { pagination: paginationOf(page, total), clients: clients.map(clientView) };
    },
  }),
];
