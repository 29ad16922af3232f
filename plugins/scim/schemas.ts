/** Schemas of the SCIM endpoint operations (wire types ScimEndpoint, CreateScimEndpointResponse; requests name `org_id`). */
import { Bool, Id, InputObject, Int64, OutputObject, Type } from '../../core/schema.js';

export const ScimEndpointRequest = InputObject('ScimEndpointRequest', { org_id: Id() });

export const ScimEndpoint = OutputObject('ScimEndpoint', {
  id: Type.String(),
  org_id: Type.String(),
  enabled: Bool(),
  created_at: Int64(),
});

export const CreateScimEndpointResponse = OutputObject('CreateScimEndpointResponse', {
  scim_endpoint: ScimEndpoint,
  /** The bearer token, shown only here (create and rotate). */
  token: Type.String(),
});
