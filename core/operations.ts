/**
 * Operations: every API call declared once. The transports are projections of the
 * operation table; `invokeOperation` is the single pipeline they all call:
 *   normalize input -> validate -> check access -> handler -> output.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import type { AuditDeclaration } from './audit.js';
import type { RequestContext } from './context.js';
import { limitOfFormat, withCharacterLimits } from './character-limits.js';
import { ServiceError } from './errors.js';
import { scalarTag } from './schema.js';

export type Access = 'public' | 'session' | 'admin' | 'org-admin';
export type OperationKind = 'query' | 'mutation';

export interface GraphqlProjection {
  /**
   * How the input reaches the root field: `params` (the default), `param`
   * (`_revoke_access(param:)`), or `flat` (each input field a plain argument).
   */
  arg?: 'params' | 'param' | 'flat';
  /** Whether the input argument is non-null; default: the input has a required field. */
  required?: boolean;
}

export interface RestProjection {
  method?: 'GET' | 'POST';
  /** Path under /v1 without the leading slash, e.g. `admin/fga/model`. */
  path?: string;
}

export interface OperationDefinition<I extends TSchema | undefined = TSchema | undefined, O extends TSchema = TSchema> {
  /** The GraphQL root field; admin operations start with `_`. */
  name: string;
  kind: OperationKind;
  access: Access;
  description: string;
  input?: I;
  output: O;
  graphql?: GraphqlProjection | false;
  rest?: RestProjection | false;
  grpc?: { method?: string } | false;
  /**
   * The output is the same on every successful call of this process (it depends only on the
   * configuration, as Meta does): REST and gRPC serialize it once and send the same bytes after
   * that. The operation itself still runs on every call (its checks and effects apply).
   */
  constantOutput?: boolean;
  /** Offered as an MCP tool. */
  mcp?: boolean;
  /**
   * A query by its contract (the GraphQL schema names `session` one) that changes state: rotates the
   * session, sets cookies. GraphQL runs it only from a POST, where the CSRF check applies: over
   * GET a cross-site `<img src=/graphql?query={session{...}}>` would rotate the victim's session.
   */
  changesState?: boolean;
  /** Deprecated operations stay in the schema and always fail. */
  deprecated?: boolean;
  /**
   * The audited action this operation performs (docs/audit.md): every admin operation declares
   * one, and so does every operation that is a security event (login, logout, password change).
   */
  audit?: AuditDeclaration<I extends TSchema ? Static<I> : undefined, Static<O>>;
  /** May answer without a promise when it has its answer at once (the kernel wraps it in one). */
  handler: (ctx: RequestContext, input: I extends TSchema ? Static<I> : undefined) => Promise<Static<O>> | Static<O>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = OperationDefinition<any, any>;

/** Identity helper that keeps the handler's types tied to the schemas. */
export function defineOperation<I extends TSchema | undefined, O extends TSchema>(
  op: OperationDefinition<I, O>,
): OperationDefinition<I, O> {
  return op;
}

/** An operation with its compiled validator and derived names. */
export interface CompiledOperation {
  readonly def: AnyOperation;
  readonly plugin: string;
  readonly isAdmin: boolean;
  readonly restMethod: 'GET' | 'POST';
  /** Full REST path, e.g. `/v1/admin/users`; null when not on REST. */
  readonly restPath: string | null;
  /** gRPC method name (PascalCase); null when not on gRPC. */
  readonly grpcMethod: string | null;
  readonly check: TypeCheck<TSchema>;
  /** Top-level input fields of free-form JSON, whose inner nulls are kept (stripNulls). */
  readonly freeForm: ReadonlySet<string> | undefined;
}

export function compileOperation(def: AnyOperation, plugin: string): CompiledOperation {
  const isAdmin = def.name.startsWith('_');
  const bare = isAdmin ? def.name.slice(1) : def.name;
  const rest = def.rest === false ? null : (def.rest ?? {});
  const restPath = rest === null ? null : `/v1/${rest.path ?? (isAdmin ? `admin/${bare}` : bare)}`;
  const grpcMethod = def.grpc === false ? null : (def.grpc?.method ?? pascalCase(bare));
  return {
    def,
    plugin,
    isAdmin,
    restMethod: rest?.method ?? (def.input ? 'POST' : def.kind === 'query' ? 'GET' : 'POST'),
    restPath,
    grpcMethod,
    // String bounds count characters, not UTF-16 code units (character-limits.ts).
    check: TypeCompiler.Compile(withCharacterLimits(def.input ?? NO_INPUT)),
    freeForm: freeFormFields(def.input),
  };
}

/** The input's top-level fields holding free-form JSON (Map), whose nulls are data (stripNulls). */
function freeFormFields(input: TSchema | undefined): ReadonlySet<string> | undefined {
  const properties = (input as { properties?: Record<string, TSchema> } | undefined)?.properties;
  if (!properties) return undefined;
  const names = Object.keys(properties).filter((k) => scalarTag(properties[k]) === 'Map');
  return names.length > 0 ? new Set(names) : undefined;
}

/**
 * What an operation without input takes: nothing, or an empty object. A REST body is a flat JSON
 * object on every route alike: `logout` and `deactivate_account` refuse a body of `[]`, `"x"` or
 * unknown fields as every other route does.
 */
const NO_INPUT = Type.Object({}, { additionalProperties: false });

export function pascalCase(name: string): string {
  return name
    .split(/[_\-/]+/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
}

/**
 * How deeply arrays and objects may nest in an operation's input. Free-form fields (`app_data`)
 * could otherwise carry nesting deep enough (a 1 MB body holds ~500k levels of `[`) to overflow
 * the stack of any recursive walk, a 500 where bad input must be a 400; 64 is far beyond what
 * any field of the API needs.
 */
export const MAX_INPUT_DEPTH = 64;

const tooDeep = () =>
  new ServiceError('invalid_argument', `invalid input: nested more than ${MAX_INPUT_DEPTH} levels deep`);

/**
 * No text of any input may hold U+0000: PostgreSQL refuses it in text and JSON columns and in
 * query parameters (a 500 if it reached the database), while SQLite stores it. Refused for every operation and database alike, before any handler runs.
 */
const NUL_CHARACTER = 'must not contain the NUL character (U+0000)';
/** `1e400` parses as Infinity, which JSON cannot hold: stored, it would come back as null. */
const notFinite = () => new ServiceError('invalid_argument', 'invalid input: numbers must be finite');
const LONE_SURROGATE = 'must be well-formed Unicode (it holds a lone surrogate)';

/**
 * Text refused somewhere in the input, named by its whole path (`app_data.a.b`, `roles.2`, as the
 * schema's own errors are): each level it passes on the way out puts its key in front. Naming
 * only the innermost key (`invalid b:`) would leave the caller guessing which field was meant.
 * Built only for a refusal.
 */
class BadText extends ServiceError {
  constructor(
    readonly path: readonly string[],
    readonly problem: string,
  ) {
    super('invalid_argument', `invalid ${path.join('.')}: ${problem}`);
  }

  static under(parent: string, err: unknown): unknown {
    return err instanceof BadText ? new BadText([parent, ...err.path], err.problem) : err;
  }
}

/**
 * Text every database and encoder takes as it is: no NUL (above), and no lone UTF-16 surrogate,
 * which JSON carries (`"\ud800"`) but UTF-8 cannot: stored as U+FFFD, two different passwords
 * would hash alike and a name would come back changed.
 */
function checkText(s: string, field: string): void {
  if (s.includes('\0')) throw new BadText([printable(field)], NUL_CHARACTER);
  if (!(s as WellFormedText).isWellFormed()) throw new BadText([printable(field)], LONE_SURROGATE);
}

/** A field name fit for an error message (the name itself may be the bad text); built only then. */
function printable(field: string): string {
  return (field.replaceAll('\0', '') as WellFormedText).toWellFormed();
}
/** ES2024 string methods (Node 20 has them; the compiler's ES2022 library does not name them). */
type WellFormedText = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * Null means "not given" on every transport (GraphQL clients send explicit nulls for unset
 * variables; proto3 has no null). Removing them here keeps one validation rule for all.
 * Except inside free-form JSON (`freeForm`: the input's top-level Map fields, such as
 * `app_data`), where a null is the caller's data: `{"a": null}` is stored as it is, not as `{}`.
 * A free-form field that is itself null is still "not given".
 */
export function stripNulls(value: unknown, depth = 0, freeForm?: ReadonlySet<string>, keepNulls = false): unknown {
  // Copy on write: most inputs carry no null at all, and then the very same value comes back
  // without an allocation (this runs on every call of every operation).
  if (Array.isArray(value)) {
    if (depth >= MAX_INPUT_DEPTH) throw tooDeep();
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      if (typeof value[i] === 'string') checkText(value[i] as string, String(i));
      let v: unknown;
      try {
        v = stripNulls(value[i], depth + 1, undefined, keepNulls);
      } catch (err) {
        throw BadText.under(String(i), err);
      }
      if (v !== value[i] && !out) out = value.slice(0, i);
      if (out) out.push(v);
    }
    return out ?? value;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw notFinite();
  if (value !== null && typeof value === 'object') {
    if (depth >= MAX_INPUT_DEPTH) throw tooDeep();
    const source = value as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    const keys = Object.keys(source);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const before = source[k];
      // Every key and string of every input passes here: no closure per key, the message is
      // built only for a refusal.
      checkText(k, k);
      if (typeof before === 'string') checkText(before, k);
      const dropped = before === undefined || (before === null && !keepNulls);
      let v: unknown;
      try {
        v = dropped
          ? undefined
          : stripNulls(
              before,
              depth + 1,
              undefined,
              keepNulls || (depth === 0 && freeForm !== undefined && freeForm.has(k)),
            );
      } catch (err) {
        throw BadText.under(printable(k), err);
      }
      if ((dropped || v !== before) && !out) {
        out = {};
        for (let j = 0; j < i; j++) out[keys[j]] = source[keys[j]];
      }
      if (out && v !== undefined) out[k] = v;
    }
    return out ?? value;
  }
  return value;
}

/**
 * The values a union of literals allows (token_type, response modes...), for a message that
 * names them: TypeBox's own says only "expected union value". Undefined for any other union.
 */
function literalChoices(schema: TSchema): string[] | undefined {
  const options = (schema as { anyOf?: unknown }).anyOf;
  if (!Array.isArray(options) || options.length === 0) return undefined;
  const values = options.map((o) =>
    o !== null && typeof o === 'object' && 'const' in o ? (o as { const: unknown }).const : undefined,
  );
  return values.every((v) => typeof v === 'string' || typeof v === 'number') ? values.map(String) : undefined;
}

/** Validates input against the operation's schema; the message names the first bad field. */
export function validateInput(op: CompiledOperation, raw: unknown): unknown {
  const input = stripNulls(raw ?? {}, 0, op.freeForm);
  if (op.check.Check(input)) return op.def.input ? input : undefined;
  const first = op.check.Errors(input).First();
  const where = first?.path ? first.path.replace(/^\//, '').replace(/\//g, '.') : '';
  // Only the format's own error is a length error: a missing or mistyped field has the same
  // schema (format included) in its error, and read as "expected string length less or equal
  // to n" (`{}` at login would answer that for the missing password).
  const limit = first?.type === ValueErrorType.StringFormat ? limitOfFormat(first.schema.format) : undefined;
  const choices = first?.type === ValueErrorType.Union ? literalChoices(first.schema) : undefined;
  const detail =
    limit !== undefined
      ? `expected string length less or equal to ${limit}`
      : choices !== undefined
        ? `expected one of ${choices.join(', ')}`
        : (first?.message ?? 'is invalid').toLowerCase();
  throw new ServiceError('invalid_argument', where ? `invalid ${where}: ${detail}` : `invalid input: ${detail}`);
}
