/**
 * CORS (Fetch standard, "CORS protocol"; SPEC.md --allowed-origins; CONTRACT.md "Transport
 * rules" for the request headers). Credentials are always allowed (the SDK sends cookies), so a
 * literal `*` is never sent: `--allowed-origins *` (or an empty list) reflects the caller's origin,
 * and a list reflects only its members. The answer depends on the Origin header, hence
 * `Vary: Origin` on every response.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface CorsOptions {
  /** --allowed-origins; empty or containing `*` means any origin. */
  allowedOrigins: readonly string[];
  /** Request headers a cross-origin caller may send. */
  allowedHeaders: readonly string[];
  methods: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds. */
  maxAgeSeconds: number;
}

export interface CorsPolicy {
  /** The Access-Control-Allow-Origin value for this Origin header, or null (not allowed / none). */
  allowOrigin(origin: string | undefined): string | null;
  /** Answers a preflight (an OPTIONS request naming Access-Control-Request-Method). */
  preflight(request: FastifyRequest, reply: FastifyReply): FastifyReply;
}

/** --allowed-origins as CORS and CSRF read it: empty or `*` is any origin; entries compare without a trailing slash. */
export interface OriginAllowList {
  readonly any: boolean;
  allows(origin: string): boolean;
}

export function originAllowList(allowed: readonly string[]): OriginAllowList {
  const any = allowed.length === 0 || allowed.includes('*');
  const listed = new Set(allowed.map((o) => o.replace(/\/+$/, '')));
  return { any, allows: (origin) => any || listed.has(origin) };
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
      if (!origin) return null;
      return origins.allows(origin) ? origin : null;
    },
    preflight(request, reply) {
      if (!request.headers.origin || !request.headers['access-control-request-method']) {
        // The REST error envelope, as for any other bad request (SPEC.md "Errors").
        return reply.code(400).send({ code: 'invalid_argument', message: 'not a CORS preflight: Origin and Access-Control-Request-Method are required' });
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
