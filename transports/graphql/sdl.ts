/**
 * The GraphQL projection of the operation table: SDL text derived from the
 * operations' TypeBox schemas, with the wire contract's names: each schema's `$id` is its type
 * name (`SignUpRequest`, `AuthResponse`), each operation's name its root field.
 *
 * Rules:
 * - each operation is a root field of Query or Mutation (`def.kind`) named `def.name`; operations
 *   with `graphql: false` are left out, deprecated ones stay;
 * - the input arrives as `params` (default), `param`, or `flat` (one argument per input property);
 *   `params`/`param` is non-null per `graphql.required`, by default when the input has a required
 *   property;
 * - object schemas are named by `$id` (inputs become `input` types, outputs `type`s; one `$id` used
 *   both ways is an error); nested objects without `$id` get `<Parent><Property>`;
 * - required properties are `!`, optional ones nullable; arrays are `[T!]`;
 * - `x-scalar` Int64 → `Int64`, Map → `Map`, ID → `ID`, any other tag or an untyped schema → `Any`;
 *   integers → `Int64`; strings (enums too) → `String`.
 *
 * The output is deterministic: root fields and types are sorted by name, properties keep their
 * declaration order. The same table always gives the same text, which the drift test relies on.
 */
import type { TSchema } from '@sinclair/typebox';
import { pascalCase, type CompiledOperation } from '../../core/operations.js';
import { scalarTag } from '../../core/schema.js';

type Kind = 'input' | 'output';

/** The custom scalars every generated schema declares. */
export const CUSTOM_SCALARS: Readonly<Record<'Any' | 'Int64' | 'Map', string>> = {
  Any: 'Any JSON value.',
  Int64: 'A 64-bit integer, sent as a JSON number.',
  Map: 'A JSON object.',
};

const BUILT_IN = new Set(['String', 'Boolean', 'Int', 'Float', 'ID']);
const RESERVED = new Set([...BUILT_IN, ...Object.keys(CUSTOM_SCALARS), 'Query', 'Mutation', 'Subscription']);
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** How a schema's value reaches GraphQL: the type name and whether a null member was declared. */
interface TypeRef {
  name: string;
  nullable: boolean;
}

interface Declared {
  kind: Kind;
  body: string;
  origin: string;
  description?: string;
}

type JsonSchema = TSchema & {
  type?: string | string[];
  $id?: string;
  $ref?: string;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
};

function checkName(name: string, what: string): void {
  if (!NAME.test(name) || name.startsWith('__'))
    throw new Error(`GraphQL SDL: ${what} "${name}" is not a valid GraphQL name`);
}

/** GraphQL string literals accept JSON's escapes, so JSON text is a safe description literal. */
const literal = (text: string): string => JSON.stringify(text);

function describe(indent: string, description: string | undefined): string {
  return description ? `${indent}${literal(description)}\n` : '';
}

class SdlBuilder {
  private readonly declared = new Map<string, Declared>();
  /** Types whose fields are being rendered (self-reference through `$ref`). */
  private readonly inProgress = new Map<string, Kind>();
  private readonly referenced = new Map<string, string>();

  /** The GraphQL type of a schema, without the outer `!`. */
  typeOf(schema: JsonSchema, kind: Kind, hint: string, origin: string): TypeRef {
    if (typeof schema.$ref === 'string') {
      checkName(schema.$ref, `type referenced by ${origin}`);
      this.referenced.set(schema.$ref, origin);
      return { name: schema.$ref, nullable: false };
    }
    const tag = scalarTag(schema);
    if (tag !== undefined)
      return { name: tag === 'Int64' || tag === 'Map' || tag === 'ID' ? tag : 'Any', nullable: false };
    if (Array.isArray(schema.anyOf)) return this.unionOf(schema.anyOf, kind, hint, origin);
    const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    const nonNull = types.filter((t) => t !== 'null');
    const nullable = nonNull.length < types.length;
    if (nonNull.length !== 1) return { name: 'Any', nullable };
    switch (nonNull[0]) {
      case 'string':
        return { name: 'String', nullable };
      case 'boolean':
        return { name: 'Boolean', nullable };
      case 'integer':
        return { name: 'Int64', nullable };
      case 'number':
        return { name: 'Float', nullable };
      case 'array': {
        const item = schema.items ? this.typeOf(schema.items, kind, hint, origin) : { name: 'Any', nullable: false };
        return { name: `[${item.name}!]`, nullable };
      }
      case 'object':
        if (!schema.properties || Object.keys(schema.properties).length === 0) return { name: 'Map', nullable };
        return { name: this.declareObject(schema, kind, schema.$id ?? hint, origin), nullable };
      default:
        return { name: 'Any', nullable };
    }
  }

  /** Unions: `X | null` is a nullable X; a union of one scalar kind is that scalar; else `Any`. */
  private unionOf(members: JsonSchema[], kind: Kind, hint: string, origin: string): TypeRef {
    const nonNull = members.filter((m) => m.type !== 'null');
    const nullable = nonNull.length < members.length;
    if (nonNull.length === 1) return { name: this.typeOf(nonNull[0], kind, hint, origin).name, nullable };
    const names = new Set(
      nonNull.map((m) =>
        m.anyOf || m.type === 'object' || m.type === 'array' || m.$ref
          ? 'Any'
          : this.typeOf(m, kind, hint, origin).name,
      ),
    );
    return { name: names.size === 1 ? [...names][0] : 'Any', nullable };
  }

  private declareObject(schema: JsonSchema, kind: Kind, name: string, origin: string): string {
    checkName(name, `type name of ${origin}`);
    if (RESERVED.has(name)) throw new Error(`GraphQL SDL: ${origin} uses the reserved type name "${name}"`);
    const existing = this.declared.get(name);
    const pending = this.inProgress.get(name);
    const otherKind = existing?.kind ?? pending;
    if (otherKind !== undefined && otherKind !== kind) {
      throw new Error(
        `GraphQL SDL: "${name}" is used as both an input and an output type (${existing?.origin ?? 'an enclosing type'} and ${origin}); give one of them another $id`,
      );
    }
    if (pending) return name;
    this.inProgress.set(name, kind);
    const body = this.fieldsOf(schema, kind, name);
    this.inProgress.delete(name);
    if (existing) {
      if (existing.body !== body) {
        throw new Error(
          `GraphQL SDL: type "${name}" is declared twice with different fields (${existing.origin} and ${origin})`,
        );
      }
      return name;
    }
    this.declared.set(name, { kind, body, origin, ...(schema.description ? { description: schema.description } : {}) });
    return name;
  }

  private fieldsOf(schema: JsonSchema, kind: Kind, typeName: string): string {
    const required = new Set(schema.required ?? []);
    const lines: string[] = [];
    for (const [prop, propSchema] of Object.entries(schema.properties ?? {})) {
      checkName(prop, `field of ${typeName}`);
      const ref = this.typeOf(propSchema, kind, `${typeName}${pascalCase(prop)}`, `${typeName}.${prop}`);
      const bang = required.has(prop) && !ref.nullable ? '!' : '';
      lines.push(`${describe('  ', propSchema.description)}  ${prop}: ${ref.name}${bang}`);
    }
    return lines.join('\n');
  }

  /** The argument list of a root field, e.g. `(params: LoginRequest!)`, or '' without input. */
  argumentsOf(op: CompiledOperation): string {
    const { def } = op;
    const input = def.input as JsonSchema | undefined;
    if (!input) return '';
    const projection = def.graphql === false ? {} : (def.graphql ?? {});
    const hint = `${pascalCase(def.name)}Input`;
    if (projection.arg === 'flat') {
      if (!input.properties)
        throw new Error(`GraphQL SDL: operation "${def.name}" uses flat arguments but its input is not an object`);
      const required = new Set(input.required ?? []);
      const args = Object.entries(input.properties).map(([prop, propSchema]) => {
        checkName(prop, `argument of ${def.name}`);
        const ref = this.typeOf(
          propSchema,
          'input',
          `${pascalCase(def.name)}${pascalCase(prop)}`,
          `${def.name}(${prop})`,
        );
        return `${prop}: ${ref.name}${required.has(prop) && !ref.nullable ? '!' : ''}`;
      });
      return args.length ? `(${args.join(', ')})` : '';
    }
    const argName = projection.arg ?? 'params';
    const ref = this.typeOf(input, 'input', hint, `${def.name}(${argName})`);
    const required = projection.required ?? (input.required ?? []).length > 0;
    return `(${argName}: ${ref.name}${required && !ref.nullable ? '!' : ''})`;
  }

  rootField(op: CompiledOperation): string {
    const { def } = op;
    checkName(def.name, 'operation name');
    const args = this.argumentsOf(op);
    const out = this.typeOf(def.output as JsonSchema, 'output', `${pascalCase(def.name)}Output`, `${def.name} output`);
    const deprecated = def.deprecated ? ` @deprecated(reason: ${literal(def.description)})` : '';
    return `${describe('  ', def.description)}  ${def.name}${args}: ${out.name}${out.nullable ? '' : '!'}${deprecated}`;
  }

  /** Every declared object type, sorted by name. */
  typeBlocks(): string[] {
    for (const [name, origin] of this.referenced) {
      if (!this.declared.has(name) && !BUILT_IN.has(name) && !(name in CUSTOM_SCALARS)) {
        throw new Error(`GraphQL SDL: ${origin} references type "${name}", which no operation declares`);
      }
    }
    return [...this.declared.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(
        ([name, d]) => `${describe('', d.description)}${d.kind === 'input' ? 'input' : 'type'} ${name} {\n${d.body}\n}`,
      );
  }
}

const byName = (a: CompiledOperation, b: CompiledOperation): number =>
  a.def.name < b.def.name ? -1 : a.def.name > b.def.name ? 1 : 0;

/** Deterministic SDL text for the GraphQL-visible operations of a table. */
export function buildSdl(ops: readonly CompiledOperation[]): string {
  const visible = ops.filter((op) => op.def.graphql !== false);
  const seen = new Set<string>();
  for (const op of visible) {
    if (seen.has(op.def.name)) throw new Error(`GraphQL SDL: operation "${op.def.name}" appears twice`);
    seen.add(op.def.name);
  }
  const queries = visible.filter((op) => op.def.kind === 'query').sort(byName);
  const mutations = visible.filter((op) => op.def.kind === 'mutation').sort(byName);
  if (queries.length === 0) throw new Error('GraphQL SDL: a GraphQL schema needs at least one query operation');

  const builder = new SdlBuilder();
  const blocks: string[] = [];
  for (const [name, description] of Object.entries(CUSTOM_SCALARS))
    blocks.push(`${literal(description)}\nscalar ${name}`);
  blocks.push(`type Query {\n${queries.map((op) => builder.rootField(op)).join('\n')}\n}`);
  if (mutations.length) blocks.push(`type Mutation {\n${mutations.map((op) => builder.rootField(op)).join('\n')}\n}`);
  blocks.push(...builder.typeBlocks());
  return `${blocks.join('\n\n')}\n`;
}
