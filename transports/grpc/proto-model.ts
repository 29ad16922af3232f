/**
 * The gRPC projection of the operation table as data: the messages, the two services
 * and, for every operation, which request/response message carries it. `proto.ts` renders this
 * model as proto3 text and `codec.ts` uses the same model to move values between the JSON shapes the
 * kernel speaks and the objects @grpc/proto-loader produces, so the two can never disagree.
 *
 * Mapping rules (JSON Schema -> proto3):
 * - object with `$id` -> message of that name; object without -> a derived name (Parent + Field);
 * - properties in declaration order, numbered 1..n; non-required -> proto3 `optional`;
 * - array -> `repeated` (an array of arrays cannot be repeated twice: JSON text);
 * - integer -> int64 (a JSON number on the Node side: proto-loader `longs: Number`);
 *   number -> double; boolean -> bool; string, literal and enum strings -> string;
 * - `x-scalar: 'Map'`, records, unknown values and unions of different kinds -> `string`
 *   holding JSON text, because proto3 has no type for free-form JSON that every client decodes.
 */
import type { TSchema } from '@sinclair/typebox';
import type { CompiledOperation } from '../../core/operations.js';
import { pascalCase } from '../../core/operations.js';
import { EMPTY_CLEARS, scalarTag } from '../../core/schema.js';

export const PROTO_PACKAGE = 'latchkey.v1';
export const PUBLIC_SERVICE = 'AuthorizerService';
export const ADMIN_SERVICE = 'AuthorizerAdminService';
export const EMPTY_MESSAGE = 'Empty';

export type ScalarType = 'string' | 'int64' | 'double' | 'bool';

/** How a field's value travels: a proto scalar, a nested message, or JSON text in a string. */
export type FieldType =
  | { kind: 'scalar'; scalar: ScalarType }
  | { kind: 'message'; message: string }
  | { kind: 'json'; what: 'Map' | 'any JSON value' };

export interface ProtoField {
  name: string;
  number: number;
  type: FieldType;
  repeated: boolean;
  /** Not required by the schema: proto3 `optional` (explicit presence). */
  optional: boolean;
  description?: string;
  /** A `clear_<list>` flag: true sets the list named here to no items (core/schema.ts EMPTY_CLEARS). */
  clears?: string;
}

export interface ProtoMessage {
  name: string;
  fields: ProtoField[];
  description?: string;
}

/**
 * Where the operation's value sits in a message: `self` when the message is the value itself,
 * otherwise the name of the wrapper field (`items` for lists, `value` for other non-objects).
 */
export type Placement = 'self' | 'items' | 'value';

export interface ProtoMethod {
  name: string;
  /** The operation (GraphQL root field) behind this method. */
  operation: string;
  service: typeof PUBLIC_SERVICE | typeof ADMIN_SERVICE;
  request: string;
  response: string;
  /** Null when the operation takes no input (the request is `Empty`). */
  input: Placement | null;
  output: Placement;
  description: string;
  deprecated: boolean;
}

export interface ProtoModel {
  /** Sorted by name. */
  messages: ProtoMessage[];
  /** Sorted by method name, per service. */
  publicMethods: ProtoMethod[];
  adminMethods: ProtoMethod[];
  message(name: string): ProtoMessage;
  /** The method of an operation name; undefined when the operation is not on gRPC. */
  method(operation: string): ProtoMethod | undefined;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface JsonSchemaView {
  $id?: string;
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  properties?: Record<string, TSchema>;
  required?: string[];
  patternProperties?: Record<string, TSchema>;
  items?: TSchema | TSchema[];
  anyOf?: TSchema[];
  oneOf?: TSchema[];
  description?: string;
}

const view = (s: TSchema): JsonSchemaView => s as unknown as JsonSchemaView;

function signature(fields: ProtoField[]): string {
  return JSON.stringify(fields.map((f) => [f.name, f.number, f.type, f.repeated, f.optional]));
}

class ModelBuilder {
  readonly messages = new Map<string, ProtoMessage>();
  /** Which schema object produced each message, so the same schema reused is not re-walked. */
  private readonly origin = new Map<string, TSchema>();
  private readonly byId = new Map<string, TSchema>();
  private readonly building = new Set<string>();

  constructor(private readonly where: (name: string) => string) {}

  /** Remembers every `$id` reachable from a schema, so `$ref`s can be resolved. */
  collectIds(schema: TSchema | undefined): void {
    if (!schema || typeof schema !== 'object') return;
    const s = view(schema);
    if (typeof s.$id === 'string' && !this.byId.has(s.$id)) this.byId.set(s.$id, schema);
    for (const p of Object.values(s.properties ?? {})) this.collectIds(p);
    for (const p of Object.values(s.patternProperties ?? {})) this.collectIds(p);
    if (Array.isArray(s.items)) s.items.forEach((i) => this.collectIds(i));
    else this.collectIds(s.items);
    for (const m of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) this.collectIds(m);
  }

  /** Registers an object schema as a message and returns its name. */
  message(schema: TSchema, fallbackName: string): string {
    const s = view(schema);
    const name = typeof s.$id === 'string' ? s.$id : fallbackName;
    if (!IDENT.test(name)) throw new Error(`${this.where(name)}: "${name}" is not a valid proto message name`);
    if (this.origin.get(name) === schema || this.building.has(name)) return name;
    this.building.add(name);
    const fields = this.fields(schema, name);
    this.building.delete(name);
    const existing = this.messages.get(name);
    if (existing) {
      if (signature(existing.fields) !== signature(fields)) {
        throw new Error(
          `${this.where(name)}: two different schemas are both named "${name}"; give one of them another $id`,
        );
      }
      return name;
    }
    this.origin.set(name, schema);
    this.messages.set(name, { name, fields, ...(s.description ? { description: s.description } : {}) });
    return name;
  }

  /** A message holding one field: the wrapper of list and non-object inputs and outputs. */
  wrapper(name: string, fieldName: 'items' | 'value', schema: TSchema): string {
    const { type, repeated } = this.fieldType(schema, name, fieldName);
    const fields: ProtoField[] = [{ name: fieldName, number: 1, type, repeated, optional: false }];
    const existing = this.messages.get(name);
    if (existing && signature(existing.fields) !== signature(fields)) {
      throw new Error(`${this.where(name)}: the wrapper message "${name}" collides with another message of that name`);
    }
    this.messages.set(name, { name, fields });
    return name;
  }

  private fields(schema: TSchema, messageName: string): ProtoField[] {
    const s = view(schema);
    const required = new Set(s.required ?? []);
    const entries = Object.entries(s.properties ?? {});
    // Numbered after every property, so adding a flag never renumbers an existing field.
    const flags: ProtoField[] = entries
      .filter(([, prop]) => (view(prop) as Record<string, unknown>)[EMPTY_CLEARS] === true)
      .map(([key], k) => ({
        name: `clear_${key}`,
        number: entries.length + k + 1,
        type: { kind: 'scalar', scalar: 'bool' },
        repeated: false,
        optional: true,
        clears: key,
        description: `true sets ${key} to no items (an empty ${key} is the same as leaving it out in proto3)`,
      }));
    return [...this.propertyFields(entries, required, messageName), ...flags];
  }

  private propertyFields(entries: [string, TSchema][], required: Set<string>, messageName: string): ProtoField[] {
    return entries.map(([key, prop], i) => {
      if (!IDENT.test(key))
        throw new Error(`${this.where(messageName)}: property "${key}" is not a valid proto field name`);
      const { type, repeated } = this.fieldType(prop, messageName, key);
      const description = view(prop).description;
      return {
        name: key,
        number: i + 1,
        type,
        repeated,
        optional: !required.has(key),
        ...(description ? { description } : {}),
      };
    });
  }

  /** The proto type of a property; `parent` and `key` name derived messages. */
  fieldType(schema: TSchema, parent: string, key: string): { type: FieldType; repeated: boolean } {
    const s = view(schema);
    if (scalarTag(schema) === 'Map') return { type: { kind: 'json', what: 'Map' }, repeated: false };
    if (typeof s.$ref === 'string') {
      const target = this.byId.get(s.$ref);
      if (!target) throw new Error(`${this.where(parent)}: $ref "${s.$ref}" does not name a schema of the operation`);
      return this.fieldType(target, parent, key);
    }
    const union = s.anyOf ?? s.oneOf;
    if (union) return this.unionType(union, parent, key);
    const type = Array.isArray(s.type) ? s.type.filter((t) => t !== 'null') : s.type;
    if (Array.isArray(type))
      return type.length === 1 ? this.fieldType({ ...schema, type: type[0] } as TSchema, parent, key) : json();
    switch (type) {
      case 'string':
        return scalar('string');
      case 'integer':
        return scalar('int64');
      case 'number':
        return scalar('double');
      case 'boolean':
        return scalar('bool');
      case 'array': {
        if (!s.items || Array.isArray(s.items)) return json();
        const item = this.fieldType(s.items, parent, key);
        // proto3 has no list of lists: the whole value travels as JSON text.
        return item.repeated ? json() : { type: item.type, repeated: true };
      }
      case 'object':
        if (!s.properties && s.patternProperties) return { type: { kind: 'json', what: 'Map' }, repeated: false };
        return { type: { kind: 'message', message: this.message(schema, parent + pascalCase(key)) }, repeated: false };
      default:
        return json();
    }
  }

  private unionType(members: TSchema[], parent: string, key: string): { type: FieldType; repeated: boolean } {
    const nonNull = members.filter((m) => view(m).type !== 'null');
    if (nonNull.length === 1) return this.fieldType(nonNull[0], parent, key);
    // Literal and enum unions of one primitive kind stay that kind (string enums are the usual case).
    const kinds = new Set(nonNull.map((m) => (view(m).const !== undefined ? view(m).type : 'mixed')));
    if (kinds.size === 1 && !kinds.has('mixed') && !kinds.has(undefined)) {
      return this.fieldType({ type: [...kinds][0] } as unknown as TSchema, parent, key);
    }
    return json();
  }
}

const scalar = (s: ScalarType): { type: FieldType; repeated: boolean } => ({
  type: { kind: 'scalar', scalar: s },
  repeated: false,
});
const json = (): { type: FieldType; repeated: boolean } => ({
  type: { kind: 'json', what: 'any JSON value' },
  repeated: false,
});

function isObjectSchema(schema: TSchema): boolean {
  const s = view(schema);
  return s.type === 'object' && scalarTag(schema) !== 'Map' && !(s.patternProperties && !s.properties);
}

/** Builds the model of the gRPC surface of an operation table (operations with `grpc: false` are left out). */
export function buildProtoModel(ops: readonly CompiledOperation[]): ProtoModel {
  const grpcOps = ops.filter((op) => op.grpcMethod !== null);
  const opOf = new Map<string, string>();
  const b = new ModelBuilder((name) => `gRPC message ${name} (operation ${opOf.get(name) ?? '?'})`);
  for (const op of grpcOps) {
    b.collectIds(op.def.input);
    b.collectIds(op.def.output);
  }
  const methods: ProtoMethod[] = [];
  const seen = new Map<string, string>();
  for (const op of grpcOps) {
    const method = op.grpcMethod as string;
    if (!IDENT.test(method)) throw new Error(`operation ${op.def.name}: "${method}" is not a valid gRPC method name`);
    const service = op.isAdmin ? ADMIN_SERVICE : PUBLIC_SERVICE;
    const key = `${service}.${method}`;
    const clash = seen.get(key);
    if (clash) throw new Error(`operations ${clash} and ${op.def.name} both map to gRPC method ${key}`);
    seen.set(key, op.def.name);

    let request = EMPTY_MESSAGE;
    let input: Placement | null = null;
    const inSchema = op.def.input as TSchema | undefined;
    if (inSchema) {
      opOf.set(`${method}Request`, op.def.name);
      if (isObjectSchema(inSchema)) {
        if (view(inSchema).$id) opOf.set(view(inSchema).$id as string, op.def.name);
        request = b.message(inSchema, `${method}Request`);
        input = 'self';
      } else {
        input = view(inSchema).type === 'array' ? 'items' : 'value';
        request = b.wrapper(`${method}Request`, input, inSchema);
      }
    } else if (!b.messages.has(EMPTY_MESSAGE)) {
      b.messages.set(EMPTY_MESSAGE, {
        name: EMPTY_MESSAGE,
        fields: [],
        description: 'The request of operations without input.',
      });
    }

    const outSchema = op.def.output as TSchema;
    let response: string;
    let output: Placement;
    opOf.set(`${method}Response`, op.def.name);
    if (isObjectSchema(outSchema)) {
      if (view(outSchema).$id) opOf.set(view(outSchema).$id as string, op.def.name);
      response = b.message(outSchema, `${method}Response`);
      output = 'self';
    } else {
      output = view(outSchema).type === 'array' ? 'items' : 'value';
      response = b.wrapper(`${method}Response`, output, outSchema);
    }
    methods.push({
      name: method,
      operation: op.def.name,
      service,
      request,
      response,
      input,
      output,
      description: op.def.description,
      deprecated: op.def.deprecated === true,
    });
  }
  const empty = b.messages.get(EMPTY_MESSAGE);
  if (empty && empty.fields.length > 0)
    throw new Error(`a schema is named "${EMPTY_MESSAGE}", which is reserved for operations without input`);

  const byName = (a: { name: string }, c: { name: string }) => (a.name < c.name ? -1 : a.name > c.name ? 1 : 0);
  const messages = [...b.messages.values()].sort(byName);
  const messageIndex = new Map(messages.map((m) => [m.name, m]));
  const methodIndex = new Map(methods.map((m) => [m.operation, m]));
  return {
    messages,
    publicMethods: methods.filter((m) => m.service === PUBLIC_SERVICE).sort(byName),
    adminMethods: methods.filter((m) => m.service === ADMIN_SERVICE).sort(byName),
    message(name) {
      const m = messageIndex.get(name);
      if (!m) throw new Error(`no gRPC message ${name}`);
      return m;
    },
    method: (operation) => methodIndex.get(operation),
  };
}
