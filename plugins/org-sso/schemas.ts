/** Schemas of the organization OIDC connection operations (wire types OrgOIDCConnection, CreateOrgOIDCConnectionRequest). */
import { Bool, Id, InputObject, OutputObject, Type } from '../../core/schema.js';

const name = () => Type.String({ minLength: 1, maxLength: 256 });
const url = () => Type.String({ minLength: 1, maxLength: 2048 });
const clientId = () => Type.String({ minLength: 1, maxLength: 512 });
const secret = () => Type.String({ minLength: 1, maxLength: 4096 });
const scopes = () => Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 32 });

export const OrgOIDCConnection = OutputObject('OrgOIDCConnection', {
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  issuer_url: Type.String(),
  sso_client_id: Type.String(),
  scopes: Type.Array(Type.String()),
  redirect_uri: Type.String(),
  is_active: Bool(),
});

export const CreateOrgOIDCConnectionRequest = InputObject('CreateOrgOIDCConnectionRequest', {
  org_id: Id(),
  name: name(),
  issuer_url: url(),
  client_id: clientId(),
  client_secret: secret(),
  scopes: Type.Optional(scopes()),
  redirect_uri: Type.Optional(url()),
});

export const UpdateOrgOIDCConnectionRequest = InputObject('UpdateOrgOIDCConnectionRequest', {
  id: Id(),
  name: Type.Optional(name()),
  issuer_url: Type.Optional(url()),
  client_id: Type.Optional(clientId()),
  client_secret: Type.Optional(secret()),
  scopes: Type.Optional(scopes()),
  redirect_uri: Type.Optional(url()),
  is_active: Type.Optional(Bool()),
});

export const DeleteOrgOIDCConnectionRequest = InputObject('DeleteOrgOIDCConnectionRequest', { id: Id() });

export const GetOrgOIDCConnectionRequest = InputObject('GetOrgOIDCConnectionRequest', {
  id: Type.Optional(Id()),
  org_id: Type.Optional(Id()),
});
