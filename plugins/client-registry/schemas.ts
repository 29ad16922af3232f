/** Schemas of the client registry (the wire types Client, CreateClientResponse and the requests). */
import {
  Bool,
  InputObject,
  Int64,
  OptBool,
  OptStr,
  OptStrList,
  OutputObject,
  Pagination,
  PaginationRequest,
  Str,
  StrList,
  Type,
} from '../../core/schema.js';

export const Client = OutputObject('Client', {
  id: Type.String(),
  client_id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  allowed_scopes: Type.Array(Type.String()),
  /** Beyond the contract: exact redirect URIs of /authorize (RFC 6749 §3.1.2). */
  redirect_uris: Type.Array(Type.String()),
  /** Beyond the contract: destinations allowed after /logout. */
  post_logout_redirect_uris: Type.Array(Type.String()),
  is_active: Bool(),
  created_at: Int64(),
  updated_at: Int64(),
});

export const CreateClientResponse = OutputObject('CreateClientResponse', {
  client: Client,
  client_secret: Type.String(),
});

const uris = (description: string) => OptStrList({ maxItems: 50, maxLength: 2048, description });

export const CreateClientRequest = InputObject('CreateClientRequest', {
  name: Str({ max: 256, min: 1 }),
  description: OptStr({ max: 2048 }),
  allowed_scopes: StrList({ maxItems: 100, maxLength: 128 }),
  redirect_uris: uris('Exact redirect URIs accepted by /authorize.'),
  post_logout_redirect_uris: uris('Destinations accepted by /logout.'),
});

export const UpdateClientRequest = InputObject('UpdateClientRequest', {
  id: Str({ max: 64, min: 1 }),
  name: OptStr({ max: 256, min: 1 }),
  description: OptStr({ max: 2048 }),
  allowed_scopes: OptStrList({ maxItems: 100, maxLength: 128 }),
  redirect_uris: uris('Exact redirect URIs accepted by /authorize.'),
  post_logout_redirect_uris: uris('Destinations accepted by /logout.'),
  is_active: OptBool(),
});

export const ClientRequest = InputObject('ClientRequest', { id: Str({ max: 64, min: 1 }) });

export const ListClientsRequest = InputObject('ListClientsRequest', { pagination: Type.Optional(PaginationRequest) });

export const Clients = OutputObject('Clients', {
  pagination: Pagination,
  clients: Type.Array(Client),
});
