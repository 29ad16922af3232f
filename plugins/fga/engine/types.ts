/**
 * The typed authorization model and the tuple shapes the engine works on. The model mirrors
 * OpenFGA's schema 1.1 type definitions: each relation has a rewrite tree and, when it can be
 * written directly, the list of user types a tuple may name (`directly_related_user_types`).
 */

/** One entry of a direct type restriction: `user`, `user:*` or `group#member`. */
export interface DirectType {
  type: string;
  relation?: string;
  wildcard?: boolean;
}

export type Rewrite =
  | { kind: 'this' }
  | { kind: 'computed'; relation: string }
  /** `computed from tupleset`: follow the tupleset relation's objects, then their `computed` relation. */
  | { kind: 'ttu'; tupleset: string; computed: string }
  | { kind: 'union'; children: Rewrite[] }
  | { kind: 'intersection'; children: Rewrite[] }
  | { kind: 'exclusion'; base: Rewrite; subtract: Rewrite };

export interface RelationDef {
  name: string;
  rewrite: Rewrite;
  /** Empty when the relation cannot be written directly (no `[...]` in its definition). */
  directTypes: DirectType[];
  /** 1-based line of the `define`, for messages. */
  line: number;
}

export interface TypeDef {
  name: string;
  relations: Map<string, RelationDef>;
  line: number;
}

export interface AuthorizationModel {
  schemaVersion: '1.1';
  types: Map<string, TypeDef>;
}

/** A relationship tuple: `user` has `relation` on `object`. */
export interface Tuple {
  user: string;
  relation: string;
  object: string;
}

/** A parsed tuple user: `type:id`, `type:*` or `type:id#relation`. */
export interface ParsedUser {
  type: string;
  id: string;
  relation?: string;
  wildcard: boolean;
}

export const EMPTY_MODEL: AuthorizationModel = { schemaVersion: '1.1', types: new Map() };

export function directTypeKey(d: DirectType): string {
  return d.wildcard ? `${d.type}:*` : d.relation ? `${d.type}#${d.relation}` : d.type;
}
