/**
 * The one table of refusals the HTTP layer makes itself, whichever layer makes them (a request
 * step, a route hook, a body parser, the error handler, the not-found handler): each refusal kind
 * has one status and one answer per surface, in the error shape that surface's clients parse.
 *
 * | surface | where | shape |
 * |---|---|---|
 * | `rest` | `/v1/*` and everything not below | `{code, message}` |
 * | `graphql` | `/graphql` | `{data: null, errors: [{message, extensions: {code}}]}` |
 * | `oauth` | `/oauth/token`, `/oauth/revoke`, `/oauth/introspect` | RFC 6749 §5.2 `{error, error_description}`, `Cache-Control: no-store` |
 * | `oauth-registration` | `/oauth/register` | the same; a malformed body is RFC 7591 §3.2.2 `invalid_client_metadata` |
 * | `scim` | `/scim/v2/*` | RFC 7644 §3.12 `{schemas: [Error], status: "<status>", scimType?, detail}` as `application/scim+json` |
 * | `json-rpc` | `/mcp` | JSON-RPC 2.0 §5.1 `{jsonrpc: "2.0", error: {code, message}, id: null}` |
 *
 * A route declares its surface (`RawRoute.errors`); a path with no route (a 404, a method nobody
 * routes) belongs to the surface whose routes it lies under (`SurfaceMap`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorStatus, type ErrorCode } from '../../core/errors.js';
import { answerThenClose } from './answer-then-close.js';

export type Surface = 'rest' | 'graphql' | 'oauth' | 'oauth-registration' | 'scim' | 'json-rpc';

export type RefusalKind =
  | 'malformed_body'
  | 'invalid_content_length'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'unsupported_encoding'
  | 'method_not_allowed'
  | 'not_preflight'
  | 'cross_site'
  | 'rate_limited'
  | 'not_found'
  | 'malformed_url'
  /** Bytes Node's HTTP parser refused (smuggling shapes, bad framing). */
  | 'malformed_request'
  | 'headers_too_large'
  /** The request did not arrive within the header or request timeout. */
  | 'request_timeout'
  /** Any other client error a framework or a hook raises: its status and code come with it. */
  | 'rejected';

interface KindRow {
  status: number;
  /** REST's `code`; GraphQL's `extensions.code` is its upper-case token (core/errors.ts). */
  code: ErrorCode | 'deadline_exceeded';
  message: string;
  /** RFC 6749 §5.2 `error`. */
  oauth: string;
  /** RFC 7591 §3.2.2 `error` where it differs from `oauth`. */
  registration?: string;
  /** RFC 7644 §3.12 `scimType` (defined for 400 only). */
  scimType?: string;
  /** JSON-RPC 2.0 error code: -32700 is a parse error; -32000 is the server-defined range the MCP SDK's transport answers HTTP refusals with. */
  jsonRpc: number;
}

const PARSE_ERROR = -32700;
const TRANSPORT_ERROR = -32000;

export const REFUSALS: Readonly<Record<RefusalKind, KindRow>> = {
  malformed_body: {
    status: 400,
    code: 'invalid_argument',
    message: 'request body is not valid JSON',
    oauth: 'invalid_request',
    registration: 'invalid_client_metadata',
    scimType: 'invalidSyntax',
    jsonRpc: PARSE_ERROR,
  },
  invalid_content_length: {
    status: 400,
    code: 'invalid_argument',
    message: 'invalid content length',
    oauth: 'invalid_request',
    scimType: 'invalidSyntax',
    jsonRpc: TRANSPORT_ERROR,
  },
  body_too_large: {
    status: 413,
    code: 'invalid_argument',
    message: 'request body is too large',
    oauth: 'invalid_request',
    jsonRpc: TRANSPORT_ERROR,
  },
  unsupported_media_type: {
    status: 415,
    code: 'invalid_argument',
    message: 'unsupported content type',
    oauth: 'invalid_request',
    jsonRpc: TRANSPORT_ERROR,
  },
  unsupported_encoding: {
    status: 415,
    code: 'invalid_argument',
    message: 'unsupported content encoding; send the body uncompressed',
    oauth: 'invalid_request',
    jsonRpc: TRANSPORT_ERROR,
  },
  method_not_allowed: {
    status: 405,
    code: 'method_not_allowed',
    message: 'method not allowed',
    oauth: 'invalid_request',
    jsonRpc: TRANSPORT_ERROR,
  },
  not_preflight: {
    status: 400,
    code: 'invalid_argument',
    message: 'not a CORS preflight: Origin and Access-Control-Request-Method are required',
    oauth: 'invalid_request',
    scimType: 'invalidSyntax',
    jsonRpc: TRANSPORT_ERROR,
  },
  cross_site: {
    status: 403,
    code: 'permission_denied',
    message: 'missing Origin or Referer header',
    oauth: 'invalid_request',
    jsonRpc: TRANSPORT_ERROR,
  },
  rate_limited: {
    status: 429,
    code: 'resource_exhausted',
    message: 'too many requests',
    oauth: 'invalid_request',
    jsonRpc: TRANSPORT_ERROR,
  },
  not_found: {
    status: 404,
    code: 'not_found',
    message: 'route not found',
    oauth: 'invalid_request',
    jsonRpc: TRANSPORT_ERROR,
  },
  malformed_url: {
    status: 400,
    code: 'invalid_argument',
    message: 'malformed URL',
    oauth: 'invalid_request',
    scimType: 'invalidSyntax',
    jsonRpc: TRANSPORT_ERROR,
  },
  malformed_request: {
    status: 400,
    code: 'invalid_argument',
    message: 'malformed HTTP request',
    oauth: 'invalid_request',
    scimType: 'invalidSyntax',
    jsonRpc: TRANSPORT_ERROR,
  },
  headers_too_large: {
    status: 431,
    code: 'invalid_argument',
    message: 'request headers are too large',
    oauth: 'invalid_request',
    jsonRpc: TRANSPORT_ERROR,
  },
  request_timeout: {
    status: 408,
    // gRPC's DEADLINE_EXCEEDED token: no operation raises it, only the transport does.
    code: 'deadline_exceeded',
    message: 'the request did not arrive in time',
    oauth: 'invalid_request',
    jsonRpc: TRANSPORT_ERROR,
  },
  rejected: {
    status: 400,
    code: 'invalid_argument',
    message: 'bad request',
    oauth: 'invalid_request',
    scimType: 'invalidSyntax',
    jsonRpc: TRANSPORT_ERROR,
  },
};

export interface Refusal {
  kind: RefusalKind;
  /** The text for the client; the kind's own when absent. */
  message?: string;
  /** For `rejected`: the status and code the error came with. */
  status?: number;
  code?: ErrorCode;
  /** Headers the refusal needs (`Allow`, `Retry-After`, `WWW-Authenticate`, `Accept-Encoding`). */
  headers?: Readonly<Record<string, string>>;
}

export interface RefusalAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** GraphQL's `extensions.code` of a REST code: the token core/errors.ts maps it to. */
const graphqlCode = (code: KindRow['code']): string =>
  code === 'deadline_exceeded' ? 'DEADLINE_EXCEEDED' : errorStatus[code].graphql;

/** The OAuth `error` of a status the table has no row for (a `rejected` 5xx). */
function oauthErrorOf(row: KindRow, status: number, registration: boolean): string {
  if (status === 503) return 'temporarily_unavailable';
  if (status >= 500) return 'server_error';
  return (registration ? row.registration : undefined) ?? row.oauth;
}

/** The answer of `refusal` on `surface`: status, headers and the body text. */
export function refusalAnswer(surface: Surface, refusal: Refusal): RefusalAnswer {
  const row = REFUSALS[refusal.kind];
  const status = refusal.status ?? row.status;
  const code = refusal.code ?? row.code;
  const message = refusal.message ?? row.message;
  const extra = refusal.headers ?? {};
  switch (surface) {
    case 'oauth':
    case 'oauth-registration':
      return {
        status,
        headers: { ...extra, 'content-type': JSON_TYPE, 'cache-control': 'no-store' },
        body: JSON.stringify({
          error: oauthErrorOf(row, status, surface === 'oauth-registration'),
          error_description: message,
        }),
      };
    case 'scim': {
      const scimType = status === 400 ? row.scimType : undefined;
      return {
        status,
        headers: { ...extra, 'content-type': 'application/scim+json', 'cache-control': 'no-store' },
        body: JSON.stringify({
          schemas: [SCIM_ERROR],
          status: String(status),
          ...(scimType ? { scimType } : {}),
          detail: message,
        }),
      };
    }
    case 'json-rpc':
      return {
        status,
        headers: { ...extra, 'content-type': JSON_TYPE },
        body: JSON.stringify({
          jsonrpc: '2.0',
          error: { code: status >= 500 ? -32603 : row.jsonRpc, message },
          id: null,
        }),
      };
    case 'graphql':
      return {
        status,
        headers: { ...extra, 'content-type': JSON_TYPE },
        body: JSON.stringify({ data: null, errors: [{ message, extensions: { code: graphqlCode(code) } }] }),
      };
    default:
      return { status, headers: { ...extra, 'content-type': JSON_TYPE }, body: JSON.stringify({ code, message }) };
  }
}

/** The value of `RawRoute.errors`, as a route's config carries it. */
type DeclaredSurface = 'oauth' | 'oauth-registration' | 'scim' | 'json-rpc';

interface SurfaceConfig {
  errors?: DeclaredSurface;
  surfaces?: SurfaceMap;
}

/**
 * The surfaces of one mounted kernel by path: each route that declares one (or the GraphQL
 * route) makes its path, up to its first parameter or wildcard, a root of that surface; a path
 * at or under a root belongs to it (the longest root wins), any other path to REST.
 */
export class SurfaceMap {
  private roots: { path: string; surface: Surface }[] = [];

  /** Notes a route as it is registered (an onRoute hook) and lets its requests find this map. */
  addRoute(route: { url: string; config?: unknown }, graphqlPath: string): void {
    const config = ((route as { config?: SurfaceConfig }).config ??= {});
    config.surfaces = this;
    const surface: Surface | undefined = route.url === graphqlPath ? 'graphql' : config.errors;
    if (surface === undefined) return;
    const cut = route.url.search(/\/[^/]*[:*]/);
    const root = cut === -1 ? route.url : route.url.slice(0, cut);
    if (root === '' || this.roots.some((r) => r.path === root)) return;
    this.roots.push({ path: root, surface });
    this.roots.sort((a, b) => b.path.length - a.path.length);
  }

  /** The surface of a request path (no query). */
  of(path: string): Surface {
    for (const root of this.roots) if (path === root.path || path.startsWith(`${root.path}/`)) return root.surface;
    return 'rest';
  }
}

/** The maps of the kernels mounted on each HTTP server, for requests that no route of theirs matched. */
const mapsByServer = new WeakMap<object, SurfaceMap[]>();

/** Makes `map` the one requests to `server` that match none of its routes are looked up in. */
export function registerSurfaces(server: object, map: SurfaceMap): void {
  const maps = mapsByServer.get(server) ?? [];
  maps.push(map);
  mapsByServer.set(server, maps);
}

/** The surface of a path on `server`, by the maps of the kernels mounted there. */
export function surfaceOnServer(server: object, path: string): Surface {
  for (const map of mapsByServer.get(server) ?? []) {
    const surface = map.of(path);
    if (surface !== 'rest') return surface;
  }
  return 'rest';
}

const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

/** The surface of a request: the one its route declares, else the one its path lies under. */
export function surfaceOf(request: FastifyRequest, map?: SurfaceMap): Surface {
  const config = request.routeOptions.config as SurfaceConfig | undefined;
  if (config?.errors) return config.errors;
  const found = map ?? config?.surfaces;
  return found ? found.of(pathOf(request.url)) : surfaceOnServer(request.server.server, pathOf(request.url));
}

/**
 * Answers `refusal` in the shape of the request's surface. A 413 is answered at once and the
 * connection closed once the client has finished sending (answer-then-close.ts).
 */
export function refuse(request: FastifyRequest, reply: FastifyReply, refusal: Refusal, map?: SurfaceMap): void {
  const answer = refusalAnswer(surfaceOf(request, map), refusal);
  if (answer.status === 413) {
    answerThenClose(reply, answer);
    return;
  }
  void reply.code(answer.status).headers(answer.headers).send(answer.body);
}
