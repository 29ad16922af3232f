/**
 * CORS (Fetch standard, "CORS protocol"; SPEC.md --allowed-origins; CONTRACT.md "Transport
 * rules" for the request headers). A literal `*` is never sent: `--allowed-origins *` (or an empty
 * list) reflects the caller's origin, and a list reflects only its members. Credentials (the SDK
 * sends cookies) are allowed only to origins that credentialed-origins.ts trusts: listed ones, the
 * service's own, and with `*` those of the service's own site. The answer depends on the Origin
 * header, hence `Vary: Origin` on every response.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CredentialedOrigins } from './credentialed-origins.js';

export interface CorsOptions {
  /** --allowed-origins; empty or containing `*` means any origin. */
  allowedOrigins: readonly string[];
  /** Request headers a cross-origin caller may send. */
  allowedHeaders: readonly string[];
  methods: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds. */
  maxAgeSeconds: number;
  /** Origins that may send cookies (Access-Control-Allow-Credentials). */
  credentialed: CredentialedOrigins;
}

export interface CorsAnswer {
  /** Access-Control-Allow-Origin. */
  origin: string;
  /** Whether Access-Control-Allow-Credentials: true goes with it. */
  credentials: boolean;
}

export interface CorsPolicy {
  /** The CORS answer for this Origin header, or null (not allowed / none / opaque). */
  allowOrigin(origin: string | undefined): CorsAnswer | null;
  /** Answers a preflight (an OPTIONS request naming Access-Control-Request-Method). */
  preflight(request: FastifyRequest, reply: FastifyReply): FastifyReply;
}

/** --allowed-origins as CORS, CSRF and credentials read it: empty or `*` is any origin; entries compare without a trailing slash. */
export interface OriginAllowList {
  readonly any: boolean;
  /** Any origin, or a listed one. */
  allows(origin: string): boolean;
  /** A listed one (`*` aside). */
  lists(origin: string): boolean;
}

export function originAllowList(allowed: readonly string[]): OriginAllowList {
  const any = allowed.length === 0 || allowed.includes('*');
  const listed = new Set(allowed.map((o) => o.replace(/\/+$/, '')));
  return { any, allows: (origin) => any || listed.has(origin), lists: (origin) => listed.has(origin) };
}

export function corsPolicy(options: CorsOptions): CorsPolicy {
  const origins = originAllowList(options.allowedOrigins);
  const preflightHeaders = {
    'access-control-allow-methods': options.methods.join(', '),
    'access-control-allow-headers': options.allowedHeaders.join(', '),
    'access-control-max-age': String(options.maxAgeSeconds),
  };
  return {
    allowOrigin(origin) {
      // An opaque origin (`null`: sandboxed frames of any site, cross-site redirects) gets no CORS
      // answer: reflecting `null` would serve every sandboxed page alike, and the service's own
      // pages never need CORS for their same-origin requests.
      if (!origin || origin === 'null' || !origins.allows(origin)) return null;
      return { origin, credentials: options.credentialed.trusts(origin) };
    },
    preflight(request, reply) {
      if (!request.headers.origin || !request.headers['access-control-request-method']) {
        // The REST error envelope, as for any other bad request (SPEC.md "Errors").
        return reply.code(400).send({
          code: 'invalid_argument',
          message: 'not a CORS preflight: Origin and Access-Control-Request-Method are required',
        });
      }
      // Safari waits for a body on a 204 without an explicit zero length.
      return reply.code(204).headers(preflightHeaders).header('content-length', '0').send();
    },
  };
}

/** The preflight answer for every path (OPTIONS is not an operation method anywhere). */
export function registerPreflightRoute(app: FastifyInstance, policy: CorsPolicy): void {
  app.options('*', (request, reply) => policy.preflight(request, reply));
}
