/** FGA input and output schemas, named as the wire contract names them. */
import { Bool, InputObject, Int64, OptInt64, OptStr, OutputObject, Str, Type } from '../../core/schema.js';
import { MAX_TEXT_BYTES } from '../../core/storage.js';

/**
 * At most 512 characters: the store's columns (store/sql-entities.ts) and OpenFGA's limit for a
 * tuple's user. A longer one (a userset can reach 562 by the parts' own limits) passed validation
 * and then failed the INSERT on PostgreSQL and MySQL, which enforce the column length.
 */
const ref = (description: string) => Str({ max: 512, min: 1, description });

export const FgaTupleInput = InputObject('FgaTupleInput', {
  user: ref('`type:id`, `type:*` or `type:id#relation`'),
  relation: Str({ max: 50, min: 1 }),
  object: ref('`type:id`'),
});

export const FgaTuple = OutputObject('FgaTuple', {
  user: Type.String(),
  relation: Type.String(),
  object: Type.String(),
});

export const PermissionCheckInput = InputObject('PermissionCheckInput', {
  relation: Str({ max: 50, min: 1 }),
  object: ref('`type:id`'),
  contextual_tuples: Type.Optional(Type.Array(FgaTupleInput, { maxItems: 100 })),
});

/** check_permissions: 1 to 100 checks per request. */
export const CheckPermissionsInput = InputObject('CheckPermissionsInput', {
  checks: Type.Array(PermissionCheckInput, { minItems: 1, maxItems: 100 }),
  user: OptStr({ max: 768, description: '`type:id` or a bare id (user:<id>); see the trust rule' }),
});

export const PermissionCheckResult = OutputObject('PermissionCheckResult', {
  relation: Type.String(),
  object: Type.String(),
  allowed: Bool(),
});
export const CheckPermissionsResponse = OutputObject('CheckPermissionsResponse', {
  results: Type.Array(PermissionCheckResult),
});

export const ListPermissionsInput = InputObject('ListPermissionsInput', {
  relation: OptStr({ max: 50 }),
  object_type: OptStr({ max: 254 }),
  user: OptStr({ max: 768 }),
});

export const Permission = OutputObject('Permission', { object: Type.String(), relation: Type.String() });
export const ListPermissionsResponse = OutputObject('ListPermissionsResponse', {
  objects: Type.Array(Type.String()),
  permissions: Type.Array(Permission),
  truncated: Bool(),
});

export const FgaModel = OutputObject('FgaModel', { id: Type.String(), dsl: Type.String() });
export const FgaWriteModelInput = InputObject('FgaWriteModelInput', { dsl: Str({ max: MAX_TEXT_BYTES, min: 1 }) });
export const FgaWriteTuplesInput = InputObject('FgaWriteTuplesInput', {
  tuples: Type.Array(FgaTupleInput, { minItems: 1, maxItems: 1000 }),
});

export const FgaReadTuplesInput = InputObject('FgaReadTuplesInput', {
  user: OptStr({ max: 768 }),
  relation: OptStr({ max: 50 }),
  object: OptStr({ max: 768 }),
  page_size: OptInt64({ min: 1, max: 1000 }),
  continuation_token: OptStr({ max: 512 }),
});
export const FgaTuples = OutputObject('FgaTuples', { tuples: Type.Array(FgaTuple), continuation_token: Type.String() });

export const FgaListUsersInput = InputObject('FgaListUsersInput', {
  object: ref('`type:id`'),
  relation: Str({ max: 50, min: 1 }),
  user_type: Str({ max: 306, min: 1, description: '`type` or `type#relation`' }),
});
export const FgaListUsersResponse = OutputObject('FgaListUsersResponse', { users: Type.Array(Type.String()) });

export const FgaExpandInput = InputObject('FgaExpandInput', {
  relation: Str({ max: 50, min: 1 }),
  object: ref('`type:id`'),
});
export const FgaExpandResponse = OutputObject('FgaExpandResponse', { tree: Type.String() });

export { Int64 };
