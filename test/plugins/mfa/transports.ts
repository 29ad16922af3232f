/**
 * A client of one transport (REST, GraphQL or gRPC) with its own cookie jar, calling operations by
 * name from the server's operation table, so one scenario runs unchanged over all three. Cookies
 * come back as Set-Cookie headers (HTTP) or `set-cookie` metadata (gRPC) and go out as `cookie`.
 */
import type { TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../../../core/errors.js';
import type { CompiledOperation } from '../../../core/operations.js';
import { grpcClient, type GrpcCallError, type GrpcTestClient } from '../../helpers/grpc-client.js';
import type { TestServer } from '../../helpers/server.js';

export type TransportKind = 'rest' | 'graphql' | 'grpc';
export const TRANSPORTS: readonly TransportKind[] = ['rest', 'graphql', 'grpc'];

export type Outcome<T = Record<string, unknown>> =
  { ok: true; value: T } | { ok: false; code: ErrorCode; message: string };

function selection(schema: TSchema): string {
  const s = schema as { type?: string; properties?: Record<string, TSchema>; items?: TSchema; 'x-scalar'?: string };
  if (s['x-scalar'] === 'Map') return '';
  if (s.type === 'array' && s.items) return selection(s.items);
  if (s.type === 'object' && s.properties)
    return `{ ${Object.entries(s.properties)
      .map(([k, v]) => `${k} ${selection(v)}`)
      .join(' ')} }`;
  return '';
}

/** GraphQL leaves absent fields null; the other transports leave them out. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = normalize(v);
    return out;
  }
  return value;
}

function graphqlType(schema: TSchema, required: boolean): string {
  const s = schema as { type?: string; 'x-scalar'?: string };
  const base = s['x-scalar'] === 'ID' ? 'ID' : s.type === 'boolean' ? 'Boolean' : 'String';
  return required ? `${base}!` : base;
}

export class TransportClient {
  readonly jar = new Map<string, string>();
  /** The Set-Cookie lines of the last call. */
  lastSetCookies: string[] = [];
  private grpc: GrpcTestClient | undefined;

  constructor(
    readonly kind: TransportKind,
    private readonly server: TestServer,
    /** Headers every call sends (a bearer token, for example). */
    readonly headers: Record<string, string> = {},
  ) {
    if (kind === 'grpc') this.grpc = grpcClient(server.grpcAddress, [...server.kernel.operations.values()]);
  }

  close(): void {
    this.grpc?.close();
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  private cookieHeader(): Record<string, string> {
    if (this.jar.size === 0) return {};
    return { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  private remember(setCookies: string[]): void {
    this.lastSetCookies = setCookies;
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const cleared = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (cleared || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  private op(name: string): CompiledOperation {
    const op = this.server.kernel.operations.get(name);
    if (!op) throw new Error(`no operation ${name}`);
    return op;
  }

  async call<T = Record<string, unknown>>(name: string, input?: object): Promise<Outcome<T>> {
    const headers = { ...this.headers, ...this.cookieHeader() };
    if (this.kind === 'rest') return this.viaRest(name, input, headers) as Promise<Outcome<T>>;
    if (this.kind === 'graphql') return this.viaGraphql(name, input, headers) as Promise<Outcome<T>>;
    return this.viaGrpc(name, input, headers) as Promise<Outcome<T>>;
  }

  /** The call's value, or a thrown error naming its code and message. */
  async ok<T = Record<string, unknown>>(name: string, input?: object): Promise<T> {
    const r = await this.call<T>(name, input);
    if (!r.ok) throw new Error(`${this.kind} ${name}: ${r.code}: ${r.message}`);
    return r.value;
  }

  private async viaRest(name: string, input: object | undefined, headers: Record<string, string>): Promise<Outcome> {
    const op = this.op(name);
    const res = await fetch(`${this.server.url}${op.restPath}`, {
      method: op.restMethod,
      headers: {
        origin: this.server.url,
        ...(op.restMethod === 'POST' ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(op.restMethod === 'POST' ? { body: JSON.stringify(input ?? {}) } : {}),
    });
    this.remember(res.headers.getSetCookie());
    const body = (await res.json()) as Record<string, unknown>;
    return res.ok
      ? { ok: true, value: normalize(body) as Record<string, unknown> }
      : { ok: false, code: body.code as ErrorCode, message: body.message as string };
  }

  private async viaGraphql(name: string, input: object | undefined, headers: Record<string, string>): Promise<Outcome> {
    const op = this.op(name);
    const schema = op.def.input as
      { $id?: string; properties?: Record<string, TSchema>; required?: string[] } | undefined;
    const kind = op.def.kind === 'query' ? 'query' : 'mutation';
    const arg = op.def.graphql ? (op.def.graphql.arg ?? 'params') : 'params';
    const required =
      op.def.graphql && op.def.graphql.required !== undefined
        ? op.def.graphql.required
        : (schema?.required?.length ?? 0) > 0;
    let query: string;
    let variables: Record<string, unknown> = {};
    const sel = selection(op.def.output);
    if (!schema) query = `${kind} { ${name} ${sel} }`;
    else if (arg === 'flat') {
      const props = Object.entries(schema.properties ?? {});
      const given = props.filter(([k]) => (input as Record<string, unknown> | undefined)?.[k] !== undefined);
      const decl = given.map(([k, v]) => `$${k}: ${graphqlType(v, schema.required?.includes(k) ?? false)}`).join(', ');
      const args = given.map(([k]) => `${k}: $${k}`).join(', ');
      query = given.length ? `${kind}(${decl}) { ${name}(${args}) ${sel} }` : `${kind} { ${name} ${sel} }`;
      variables = { ...(input ?? {}) };
    } else {
      query = `${kind}($p: ${schema.$id}${required ? '!' : ''}) { ${name}(${arg}: $p) ${sel} }`;
      variables = { p: input ?? {} };
    }
    const res = await fetch(`${this.server.url}/graphql`, {
      method: 'POST',
      headers: { origin: this.server.url, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    this.remember(res.headers.getSetCookie());
    const body = (await res.json()) as {
      data?: Record<string, unknown>;
      errors?: { message: string; extensions?: { code?: string } }[];
    };
    if (body.errors?.length) {
      const e = body.errors[0];
      return { ok: false, code: (e.extensions?.code ?? 'INTERNAL').toLowerCase() as ErrorCode, message: e.message };
    }
    return { ok: true, value: normalize(body.data?.[name]) as Record<string, unknown> };
  }

  private async viaGrpc(name: string, input: object | undefined, headers: Record<string, string>): Promise<Outcome> {
    try {
      const r = await this.grpc!.call(name, input, headers);
      this.remember(r.metadata['set-cookie'] ?? []);
      return { ok: true, value: normalize(r.response) as Record<string, unknown> };
    } catch (err) {
      const e = err as GrpcCallError;
      this.remember(e.metadata?.['set-cookie'] ?? []);
      return { ok: false, code: e.code, message: e.message.replace(/^\d+ [A-Z_]+: /, '') };
    }
  }
}
