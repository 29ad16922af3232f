/**
 * Mutations removed in v2 (`_update_env`, `_admin_signup`, `_generate_jwt_keys`) stay in the
 * schema and always fail, each with its fixed error text.
 */
import { ServiceError } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { InputObject, MessageResponse, OptStr, Type } from '../../core/schema.js';

function deprecated(name: string, inputId: string, text: string): AnyOperation {
  return defineOperation({
    name,
    kind: 'mutation',
    access: 'public',
    deprecated: true,
    description: `Deprecated: ${text}.`,
    input: InputObject(
      inputId,
      { payload: Type.Optional(Type.Unknown({ 'x-scalar': 'Map' })), email: OptStr(), password: OptStr() },
      { additionalProperties: true },
    ),
    graphql: { required: false },
    rest: false,
    output: MessageResponse,
    handler: async () => {
      throw new ServiceError('failed_precondition', text);
    },
  });
}

export const deprecatedOperations: AnyOperation[] = [
  deprecated('_update_env', 'UpdateEnvRequest', 'deprecated. please configure env via cli args'),
  deprecated('_admin_signup', 'AdminSignupRequest', 'deprecated. please configure admin secret via cli args'),
  deprecated('_generate_jwt_keys', 'GenerateJWTKeysRequest', 'deprecated. please configure jwt keys via cli args'),
];
