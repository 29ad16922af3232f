/**
 * One wording for variables of the wrong type. Mercurius compiles a query with graphql-jit on its
 * second use and, on that one request, skips graphql-js' check of the variables: graphql-jit's
 * own refusal came back instead, worded differently and naming a variable the document does not
 * have (`$password` for `$p`), so the same request would answer differently on its second try.
 * On that refusal only (a cold path), the variables are checked again with graphql-js,
 * whose errors every other request gets.
 */
import { getOperationAST, GraphQLError, parse, type GraphQLSchema } from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';

interface GraphqlRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

const isVariableRefusal = (err: { message: string }) => err.message.startsWith('Variable "$');

/** graphql-js' errors for the request's variables when `errors` refuse them; otherwise undefined. */
export function canonicalVariableErrors(
  errors: readonly { message: string }[],
  schema: GraphQLSchema | undefined,
  request: GraphqlRequest | undefined,
): GraphQLError[] | undefined {
  if (!schema || !request || typeof request.query !== 'string' || !errors.some(isVariableRefusal)) return undefined;
  try {
    const operation = getOperationAST(
      parse(request.query),
      typeof request.operationName === 'string' ? request.operationName : undefined,
    );
    if (!operation) return undefined;
    const variables =
      typeof request.variables === 'string' ? (JSON.parse(request.variables) as unknown) : request.variables;
    const coerced = getVariableValues(
      schema,
      operation.variableDefinitions ?? [],
      (variables ?? {}) as Record<string, unknown>,
      { maxErrors: 50 },
    );
    return coerced.errors && coerced.errors.length > 0 ? [...coerced.errors] : undefined;
  } catch {
    // Whatever cannot be parsed again keeps the errors it got.
    return undefined;
  }
}
