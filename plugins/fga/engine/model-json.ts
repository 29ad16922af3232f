/**
 * The model as OpenFGA's JSON authorization model (`schema_version`, `type_definitions` with
 * `this` / `computedUserset` / `tupleToUserset` / `union` / `intersection` / `difference`
 * rewrites and `directly_related_user_types` metadata). Used to prove the parser agrees with
 * OpenFGA's own transformer, and handy for migrations.
 */
import type { AuthorizationModel, DirectType, Rewrite } from './types.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

function rewriteJson(rw: Rewrite): JsonValue {
  switch (rw.kind) {
    case 'this':
      return { this: {} };
    case 'computed':
      return { computedUserset: { relation: rw.relation } };
    case 'ttu':
      return { tupleToUserset: { tupleset: { relation: rw.tupleset }, computedUserset: { relation: rw.computed } } };
    case 'union':
      return { union: { child: rw.children.map(rewriteJson) } };
    case 'intersection':
      return { intersection: { child: rw.children.map(rewriteJson) } };
    case 'exclusion':
      return { difference: { base: rewriteJson(rw.base), subtract: rewriteJson(rw.subtract) } };
  }
}

function directJson(d: DirectType): JsonValue {
  if (d.wildcard) return { type: d.type, wildcard: {} };
  if (d.relation) return { type: d.type, relation: d.relation };
  return { type: d.type };
}

export function modelToJson(model: AuthorizationModel): JsonValue {
  if (model.types.size === 0) return { schema_version: model.schemaVersion };
  return {
    schema_version: model.schemaVersion,
    type_definitions: [...model.types.values()].map((t) => {
      const relations: Record<string, JsonValue> = {};
      const meta: Record<string, JsonValue> = {};
      for (const r of t.relations.values()) {
        relations[r.name] = rewriteJson(r.rewrite);
        meta[r.name] = { directly_related_user_types: r.directTypes.map(directJson) };
      }
      return { type: t.name, relations, metadata: t.relations.size > 0 ? { relations: meta } : null };
    }),
  };
}
