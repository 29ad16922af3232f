/**
 * JSON text carried inside a message (gRPC's JSON fields: `app_data`, claims), parsed with the
 * rules the HTTP body parser applies to every REST and GraphQL body (Fastify's secure parser):
 * a `__proto__` key, or a `constructor` key holding `prototype`, is refused, not stored (gRPC
 * must not store what REST refuses). Non-finite numbers are refused for every transport
 * by `stripNulls` (core/operations.ts).
 */
export class JsonTextError extends Error {}

function refusePoisonedKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new JsonTextError('a "__proto__" key is not allowed');
  if (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')) {
    throw new JsonTextError('a "constructor.prototype" key is not allowed');
  }
  return value;
}

/** Parses JSON text; throws SyntaxError or JsonTextError. */
export function parseJsonText(text: string): unknown {
  return JSON.parse(text, refusePoisonedKeys) as unknown;
}
