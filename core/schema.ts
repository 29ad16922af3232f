/**
 * Schema building blocks for operation inputs and outputs. Every schema is TypeBox (JSON Schema);
 * the transports derive GraphQL SDL, .proto and OpenAPI from them, so the few
 * conventions here matter:
 * - an object schema that becomes a named type carries `$id` (the GraphQL type name);
 * - `Int64` is an integer the GraphQL projection calls `Int64` (a JSON number);
 * - `JsonMap` is a free-form object (GraphQL `Map`, gRPC JSON text);
 * - inputs reject unknown fields and bound every string and list.
 */
import { Type, type Static, type TSchema, type TObject, type TProperties, type ObjectOptions } from '@sinclair/typebox';

export { Type };
export type { TSchema, TObject, Static } from '@sinclair/typebox';

/** Default bound for free-text input strings; ids and names use tighter ones. */
export const MAX_STRING = 2048;

export const Str = (opts: { max?: number; min?: number; description?: string; format?: 'email' | 'uri' } = {}) =>
  Type.String({
    maxLength: opts.max ?? MAX_STRING,
    ...(opts.min !== undefined ? { minLength: opts.min } : {}),
    ...(opts.description ? { description: opts.description } : {}),
  });

export const OptStr = (opts: { max?: number; min?: number; description?: string } = {}) => Type.Optional(Str(opts));

export const Bool = (description?: string) => Type.Boolean(description ? { description } : {});
export const OptBool = (description?: string) => Type.Optional(Bool(description));

export const Int64 = (opts: { min?: number; max?: number; description?: string } = {}) =>
  Type.Integer({
    'x-scalar': 'Int64',
    ...(opts.min !== undefined ? { minimum: opts.min } : {}),
    ...(opts.max !== undefined ? { maximum: opts.max } : {}),
    ...(opts.description ? { description: opts.description } : {}),
  });
export const OptInt64 = (opts: { min?: number; max?: number; description?: string } = {}) => Type.Optional(Int64(opts));

/** An identifier: a string everywhere, GraphQL `ID` (schema.graphql `User.id: ID!`). */
export const Id = (description?: string) =>
  Type.String({ 'x-scalar': 'ID', maxLength: 128, ...(description ? { description } : {}) });

/** Free-form JSON object (GraphQL scalar `Map`). */
export const JsonMap = (description?: string) =>
  Type.Record(Type.String({ maxLength: 256 }), Type.Unknown(), {
    'x-scalar': 'Map',
    ...(description ? { description } : {}),
  });
export const OptJsonMap = (description?: string) => Type.Optional(JsonMap(description));

export const StrList = (opts: { maxItems?: number; maxLength?: number; description?: string } = {}) =>
  Type.Array(Type.String({ maxLength: opts.maxLength ?? 256 }), {
    maxItems: opts.maxItems ?? 100,
    ...(opts.description ? { description: opts.description } : {}),
  });
/**
 * `emptyClears`: an empty list sets the field to no items, where leaving it out keeps it (an
 * update's `roles`). JSON tells the two apart; proto3 cannot (a repeated field has no presence),
 * so the gRPC projection adds a `clear_<name>` flag for it (transports/grpc/proto-model.ts).
 */
export const EMPTY_CLEARS = 'x-empty-clears';
export const OptStrList = (
  opts: { maxItems?: number; maxLength?: number; description?: string; emptyClears?: boolean } = {},
) => {
  const { emptyClears, ...list } = opts;
  const schema = StrList(list);
  return Type.Optional(emptyClears ? ({ ...schema, [EMPTY_CLEARS]: true } as typeof schema) : schema);
};

/** An input object: named, closed (unknown fields are an invalid_argument). */
export function InputObject<P extends TProperties>(id: string, properties: P, options: ObjectOptions = {}): TObject<P> {
  return Type.Object(properties, { $id: id, additionalProperties: false, ...options });
}

/** An output object: named; optional properties are nullable in GraphQL and optional in proto. */
export function OutputObject<P extends TProperties>(
  id: string,
  properties: P,
  options: ObjectOptions = {},
): TObject<P> {
  return Type.Object(properties, { $id: id, ...options });
}

/** `{ message }`, the answer of most mutations (schema.graphql `Response`). */
export const MessageResponse = OutputObject('Response', { message: Type.String() });

export const PaginationRequest = InputObject('PaginationRequest', {
  limit: OptInt64({ min: 1, max: 1000 }),
  page: OptInt64({ min: 1, max: 1_000_000 }),
});

export const Pagination = OutputObject('Pagination', {
  limit: Int64(),
  page: Int64(),
  offset: Int64(),
  total: Int64(),
});

/** Page size when a list request names none (pagination is `{ page, limit }`). */
export const DEFAULT_PAGE_LIMIT = 10;

/** A page request resolved to numbers: page 1 and DEFAULT_PAGE_LIMIT unless the caller said. */
export function pageOf(request: { page?: number; limit?: number } | undefined): {
  page: number;
  limit: number;
  offset: number;
} {
  const page = request?.page ?? 1;
  const limit = request?.limit ?? DEFAULT_PAGE_LIMIT;
  return { page, limit, offset: (page - 1) * limit };
}

/** The Pagination answer for a resolved page and the total count. */
export function paginationOf(
  page: { page: number; limit: number; offset: number },
  total: number,
): Static<typeof Pagination> {
  return { limit: page.limit, page: page.page, offset: page.offset, total };
}

/** Reads the scalar tag the projections use. */
export function scalarTag(schema: TSchema): string | undefined {
  const tag = (schema as { 'x-scalar'?: unknown })['x-scalar'];
  return typeof tag === 'string' ? tag : undefined;
}
