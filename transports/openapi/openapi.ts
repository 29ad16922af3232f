/**
 * The OpenAPI 3.1 document of the REST projection, from the same operation table and schemas
 *. Input and output objects become components named by their `$id`.
 */
import type { TSchema } from '@sinclair/typebox';
import { errorStatus } from '../../core/errors.js';
import type { CompiledOperation } from '../../core/operations.js';

type Json = Record<string, unknown>;

function collect(schema: TSchema, components: Map<string, Json>): Json {
  const s = schema as Json & { $id?: string; type?: string; properties?: Record<string, TSchema>; items?: TSchema };
  const clean: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$id' || k === 'x-scalar' || typeof k === 'symbol') continue;
    if (k === 'properties' && s.properties) {
      const props: Json = {};
      for (const [pk, pv] of Object.entries(s.properties)) props[pk] = collect(pv, components);
      clean.properties = props;
    } else if (k === 'items' && s.items) clean.items = collect(s.items, components);
    else if (k === 'patternProperties' && v && typeof v === 'object') {
      clean.additionalProperties = true;
    } else clean[k] = v;
  }
  if (s.type === 'integer' && s['x-scalar'] === 'Int64') clean.format = 'int64';
  if (s.$id && s.type === 'object') {
    if (!components.has(s.$id)) components.set(s.$id, clean);
    return { $ref: `#/components/schemas/${s.$id}` };
  }
  return clean;
}

const errorResponse = {
  description: 'Error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

export function buildOpenApi(ops: readonly CompiledOperation[], version: string): Json {
  const components = new Map<string, Json>();
  const paths: Record<string, Json> = {};
  for (const op of [...ops].sort(
    (a, b) => (a.restPath ?? '').localeCompare(b.restPath ?? '') || a.restMethod.localeCompare(b.restMethod),
  )) {
    if (!op.restPath) continue;
    const operation: Json = {
      operationId: op.def.name,
      summary: op.def.description,
      ...(op.def.deprecated ? { deprecated: true } : {}),
      tags: [op.isAdmin ? 'admin' : 'public'],
      ...(op.def.access === 'public'
        ? { security: [] }
        : op.isAdmin || op.def.access === 'admin'
          ? { security: [{ adminSecret: [] }, { adminCookie: [] }] }
          : { security: [{ bearer: [] }, { sessionCookie: [] }] }),
      ...(op.def.input && op.restMethod === 'POST'
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: collect(op.def.input, components) } },
            },
          }
        : {}),
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: collect(op.def.output, components) } } },
        default: errorResponse,
      },
    };
    paths[op.restPath] = { ...(paths[op.restPath] ?? {}), [op.restMethod.toLowerCase()]: operation };
  }
  const schemas: Json = {
    Error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string', enum: Object.keys(errorStatus) }, message: { type: 'string' } },
    },
  };
  for (const name of [...components.keys()].sort()) schemas[name] = components.get(name);
  return {
    openapi: '3.1.0',
    info: { title: 'Latchkey REST API', version },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'cookie_session' },
        adminSecret: { type: 'apiKey', in: 'header', name: 'x-service-admin-secret' },
        adminCookie: { type: 'apiKey', in: 'cookie', name: 'service-admin' },
      },
    },
  };
}
