/**
 * Turns a parsed DSL into a typed model, refusing what OpenFGA refuses (openfga/language
 * semantic validation): reserved and malformed names, duplicates, references to unknown types
 * or relations, tupleset relations that are not direct-only or admit usersets or wildcards,
 * `x from y` where no type of `y` has `x`, and relations with no entry point (no way for any
 * tuple to ever satisfy them). The first problem is reported, with its line.
 */
import { ModelError } from './dsl-error.js';
import { parseDsl, type AstDirect, type AstExpr, type AstModel, type AstRelation } from './dsl-parser.js';
import {
  directTypeKey,
  type AuthorizationModel,
  type DirectType,
  type RelationDef,
  type Rewrite,
  type TypeDef,
} from './types.js';

const TYPE_NAME = /^[^:#@*\s]{1,254}$/;
const RELATION_NAME = /^[^:#@*\s]{1,50}$/;
const RESERVED = new Set(['self', 'this']);
/** The operators of the language, which OpenFGA's grammar never reads as a name (words like `type` or `model` it does, in its fixtures). */
const KEYWORDS = new Set(['or', 'and', 'from', 'with']);

const err = (message: string, line0: number, kind: string): ModelError => new ModelError(message, line0 + 1, kind);

export function compileModel(dsl: string): AuthorizationModel {
  return validateAst(parseDsl(dsl));
}

/** The typed model without semantic checks (what OpenFGA's transformer produces). */
export function buildModel(ast: AstModel): AuthorizationModel {
  const types = new Map<string, TypeDef>();
  // First pass: relation shells, so references can be resolved regardless of order.
  for (const t of ast.types) {
    const relations = new Map<string, RelationDef>();
    for (const r of t.relations) {
      const { rewrite, direct } = lower(r, r.expr);
      relations.set(r.name, { name: r.name, rewrite, directTypes: direct, line: r.line + 1 });
    }
    types.set(t.name, { name: t.name, relations, line: t.line + 1 });
  }
  return { schemaVersion: '1.1', types };
}

export function validateAst(ast: AstModel): AuthorizationModel {
  checkNames(ast);
  const model = buildModel(ast);
  const types = model.types;
  for (const t of ast.types) for (const r of t.relations) checkReferences(types, t.name, r);
  const reachable = relationsWithEntryPoints(types);
  for (const t of ast.types) {
    for (const r of t.relations) {
      if (!reachable.has(`${t.name}#${r.name}`)) {
        throw err(
          `\`${r.name}\` is an impossible relation for \`${t.name}\` (no entrypoint).`,
          r.line,
          'relation-no-entry-point',
        );
      }
    }
  }
  return model;
}

function checkNames(ast: AstModel): void {
  const seenTypes = new Map<string, number>();
  for (const t of ast.types) {
    if (RESERVED.has(t.name)) throw err(`a type cannot be named 'self' or 'this'.`, t.line, 'reserved-type-keywords');
    if (KEYWORDS.has(t.name))
      throw err(`\`${t.name}\` is a keyword of the model language and cannot name a type.`, t.line, 'invalid-name');
    if (!TYPE_NAME.test(t.name))
      throw err(`type '${t.name}' does not match naming rule: '${TYPE_NAME.source}'.`, t.line, 'invalid-name');
    const first = seenTypes.get(t.name);
    if (first !== undefined)
      throw err(`the type \`${t.name}\` is defined twice (again on line ${t.line + 1}).`, first, 'duplicated-error');
    seenTypes.set(t.name, t.line);
    const seenRelations = new Set<string>();
    for (const r of t.relations) {
      if (RESERVED.has(r.name))
        throw err(`a relation cannot be named 'self' or 'this'.`, r.line, 'reserved-relation-keywords');
      if (KEYWORDS.has(r.name))
        throw err(
          `\`${r.name}\` is a keyword of the model language and cannot name a relation.`,
          r.line,
          'invalid-name',
        );
      if (!RELATION_NAME.test(r.name)) {
        throw err(
          `relation '${r.name}' of type '${t.name}' does not match naming rule: '${RELATION_NAME.source}'.`,
          r.line,
          'invalid-name',
        );
      }
      if (seenRelations.has(r.name))
        throw err(`the relation \`${r.name}\` of type \`${t.name}\` is a duplicate.`, r.line, 'duplicated-error');
      seenRelations.add(r.name);
    }
  }
}

/** AST to rewrite tree; the one `[...]` of a relation becomes `this` plus its direct types. */
function lower(rel: AstRelation, expr: AstExpr): { rewrite: Rewrite; direct: DirectType[] } {
  let direct: DirectType[] | null = null;
  const walk = (e: AstExpr): Rewrite => {
    switch (e.kind) {
      case 'direct': {
        if (direct)
          throw err(`relation \`${rel.name}\` has more than one type restriction [...]`, e.line, 'duplicated-error');
        const seen = new Set<string>();
        direct = e.types.map((d: AstDirect) => {
          const dt: DirectType = {
            type: d.type,
            ...(d.relation ? { relation: d.relation } : {}),
            ...(d.wildcard ? { wildcard: true } : {}),
          };
          const key = directTypeKey(dt);
          if (seen.has(key))
            throw err(
              `the type restriction \`${key}\` of relation \`${rel.name}\` is a duplicate.`,
              d.line,
              'duplicated-error',
            );
          seen.add(key);
          return dt;
        });
        return { kind: 'this' };
      }
      case 'computed':
        return { kind: 'computed', relation: e.relation };
      case 'ttu':
        return { kind: 'ttu', tupleset: e.tupleset, computed: e.computed };
      case 'union':
      case 'intersection': {
        const seen = new Set<string>();
        for (const c of e.children) {
          const key = c.kind === 'computed' ? c.relation : c.kind === 'ttu' ? `${c.computed} from ${c.tupleset}` : null;
          if (key === null) continue;
          if (seen.has(key))
            throw err(`\`${key}\` appears twice in the definition of \`${rel.name}\`.`, c.line, 'duplicated-error');
          seen.add(key);
        }
        return { kind: e.kind, children: e.children.map(walk) };
      }
      case 'exclusion': {
        const key = (c: AstExpr) =>
          c.kind === 'computed' ? c.relation : c.kind === 'ttu' ? `${c.computed} from ${c.tupleset}` : null;
        const b = key(e.base);
        if (b !== null && b === key(e.subtract)) {
          throw err(
            `\`${b}\` appears twice in the definition of \`${rel.name}\`.`,
            e.subtract.line,
            'duplicated-error',
          );
        }
        return { kind: 'exclusion', base: walk(e.base), subtract: walk(e.subtract) };
      }
    }
  };
  const rewrite = walk(expr);
  return { rewrite, direct: direct ?? [] };
}

function checkReferences(types: Map<string, TypeDef>, typeName: string, rel: AstRelation): void {
  const own = types.get(typeName)!;
  const visit = (e: AstExpr): void => {
    switch (e.kind) {
      case 'direct':
        for (const d of e.types) {
          const target = types.get(d.type);
          if (!target) throw err(`\`${d.type}\` is not a valid type.`, d.line, 'invalid-type');
          if (d.relation && !target.relations.has(d.relation)) {
            throw err(
              `\`${d.type}#${d.relation}\` is not a valid relation for \`${d.type}\`.`,
              d.line,
              'invalid-relation-type',
            );
          }
        }
        return;
      case 'computed':
        if (!own.relations.has(e.relation))
          throw err(`the relation \`${e.relation}\` does not exist.`, e.line, 'missing-definition');
        return;
      case 'ttu': {
        const ts = own.relations.get(e.tupleset);
        if (!ts) throw err(`the relation \`${e.tupleset}\` does not exist.`, e.tuplesetPos.line, 'missing-definition');
        if (ts.rewrite.kind !== 'this' || ts.directTypes.some((d) => d.relation || d.wildcard)) {
          throw err(
            `\`${e.tupleset}\` relation used inside from allows only direct relation.`,
            e.tuplesetPos.line,
            'tupleuserset-not-direct',
          );
        }
        if (!ts.directTypes.some((d) => types.get(d.type)?.relations.has(e.computed))) {
          throw err(
            `the \`${e.computed}\` relation definition on type \`${typeName}\` is not valid: \`${e.computed}\` does not exist on \`${e.tupleset}\`, which is of type \`${ts.directTypes.map((d) => d.type).join(', ')}\`.`,
            e.line,
            'invalid-relation-on-tupleset',
          );
        }
        return;
      }
      case 'union':
      case 'intersection':
        e.children.forEach(visit);
        return;
      case 'exclusion':
        visit(e.base);
        visit(e.subtract);
        return;
    }
  };
  visit(rel.expr);
}

/**
 * The `type#relation` pairs some tuple could ever satisfy (OpenFGA's entry point rule): a direct
 * plain or wildcard type, a userset whose relation has one, or a path through computed and
 * tuple-to-userset relations that ends in one; intersection and exclusion need every part. A
 * loop alone is no entry point, so this is the least fixed point: a relation joins the set when
 * its rewrite holds with what the set already has, and each joining re-evaluates only the
 * relations that read it. Time is linear in the model's size times its fan-in, where a search
 * per relation along every path is exponential in shared sub-expressions (a 1 KB model of
 * nested `a and b` levels would block the event loop for seconds) and recursed once
 * per hop of a chain (a stack overflow on long ones).
 */
function relationsWithEntryPoints(types: Map<string, TypeDef>): Set<string> {
  const found = new Set<string>();
  const readers = new Map<string, string[]>();
  const relations = new Map<string, { typeName: string; def: RelationDef }>();
  const reads = (typeName: string, def: RelationDef): string[] => {
    const out = def.directTypes.filter((d) => d.relation).map((d) => `${d.type}#${d.relation}`);
    const visit = (rw: Rewrite): void => {
      switch (rw.kind) {
        case 'this':
          return;
        case 'computed':
          out.push(`${typeName}#${rw.relation}`);
          return;
        case 'ttu':
          for (const d of types.get(typeName)!.relations.get(rw.tupleset)!.directTypes)
            out.push(`${d.type}#${rw.computed}`);
          return;
        case 'union':
        case 'intersection':
          rw.children.forEach(visit);
          return;
        case 'exclusion':
          visit(rw.base);
          visit(rw.subtract);
          return;
      }
    };
    visit(def.rewrite);
    return out;
  };
  for (const t of types.values()) {
    for (const def of t.relations.values()) {
      const key = `${t.name}#${def.name}`;
      relations.set(key, { typeName: t.name, def });
      for (const read of reads(t.name, def)) {
        const list = readers.get(read);
        if (list) list.push(key);
        else readers.set(read, [key]);
      }
    }
  }
  const holds = (typeName: string, def: RelationDef, rw: Rewrite): boolean => {
    switch (rw.kind) {
      case 'this':
        return def.directTypes.some((d) => !d.relation || found.has(`${d.type}#${d.relation}`));
      case 'computed':
        return found.has(`${typeName}#${rw.relation}`);
      case 'ttu': {
        const ts = types.get(typeName)!.relations.get(rw.tupleset)!;
        return ts.directTypes.some((d) => !d.relation && !d.wildcard && found.has(`${d.type}#${rw.computed}`));
      }
      case 'union':
        return rw.children.some((c) => holds(typeName, def, c));
      case 'intersection':
        return rw.children.every((c) => holds(typeName, def, c));
      case 'exclusion':
        return holds(typeName, def, rw.base) && holds(typeName, def, rw.subtract);
    }
  };
  const pending = [...relations.keys()];
  while (pending.length > 0) {
    const key = pending.pop()!;
    if (found.has(key)) continue;
    const { typeName, def } = relations.get(key)!;
    if (!holds(typeName, def, def.rewrite)) continue;
    found.add(key);
    for (const reader of readers.get(key) ?? []) if (!found.has(reader)) pending.push(reader);
  }
  return found;
}
