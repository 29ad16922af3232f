/**
 * The custom scalars of the GraphQL surface: `Int64` (a JSON number, integers only),
 * `Map` (a JSON object) and `Any` (any JSON value). Bad values become GraphQL errors, which the
 * server answers with 400 (variables) or 200 with an error entry (literals checked at validation).
 */
import { GraphQLError, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';

/** Int64's range; JSON numbers beyond 2^53 lose precision but stay integers. */
const INT64_LIMIT = 2 ** 63;

export interface ScalarResolver {
  serialize(value: unknown): unknown;
  parseValue(value: unknown): unknown;
  parseLiteral(ast: ValueNode, variables?: Record<string, unknown> | null): unknown;
}

function int64(value: unknown): number {
  const n =
    typeof value === 'bigint'
      ? Number(value)
      : typeof value === 'string' && /^-?\d+$/.test(value)
        ? Number(value)
        : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || Math.abs(n) >= INT64_LIMIT) {
    throw new GraphQLError(`Int64 cannot represent non-integer value: ${JSON.stringify(value) ?? String(value)}`);
  }
  return n;
}

export const int64Scalar: ScalarResolver = {
  serialize: int64,
  parseValue(value) {
    // Inputs must already be JSON numbers; strings are not coerced.
    if (typeof value !== 'number')
      throw new GraphQLError(`Int64 cannot represent non-integer value: ${JSON.stringify(value)}`);
    return int64(value);
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.INT) throw new GraphQLError('Int64 cannot represent a non-integer literal', { nodes: ast });
    return int64(Number(ast.value));
  },
};

const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export const mapScalar: ScalarResolver = {
  serialize: (value) => value,
  parseValue(value) {
    if (!isJsonObject(value)) throw new GraphQLError('Map must be a JSON object');
    return value;
  },
  parseLiteral(ast, variables) {
    if (ast.kind !== Kind.OBJECT) throw new GraphQLError('Map must be a JSON object', { nodes: ast });
    return valueFromASTUntyped(ast, variables ?? undefined);
  },
};

export const anyScalar: ScalarResolver = {
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables ?? undefined),
};
