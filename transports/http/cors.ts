/**
 * CORS (Fetch standard, "CORS protocol"; --allowed-origins; the request headers clients send:
 * x-authorizer-url, x-authorizer-client-id, x-service-admin-secret, authorization, content-type)
 * through @fastify/cors, whose `delegator` decides per request.
 * A literal `*` is never sent: `--allowed-origins *` (or an empty list) reflects the caller's
 * origin, and a list reflects only its members. Credentials (the SDK sends cookies) are allowed
 * only to origins that credentialed-origins.ts trusts: listed ones, the service's own, and with
 * `*` those of the service's own site. The answer depends on the Origin header, hence
 * `Vary: Origin` on every response (the plugin adds it for a delegated policy).
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CredentialedOrigins } from './credentialed-origins.js';
import { refuse } from './refusal-shapes.js';
import type { RequestStep } from './request-steps.js';

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

/** The CORS answer for this Origin header, or null (not allowed / none / opaque). */
export function corsAnswer(options: CorsOptions): (origin: string | undefined) => CorsAnswer | null {
  const origins = originAllowList(options.allowedOrigins);
  return (origin) => {
    // An opaque origin (`null`: sandboxed frames of any site, cross-site redirects) gets no CORS
    // answer: reflecting `null` would serve every sandboxed page alike, and the service's own
    // pages never need CORS for their same-origin requests.
    if (!origin || origin === 'null' || !origins.allows(origin)) return null;
    return { origin, credentials: options.credentialed.trusts(origin) };
  };
}

/**
 * Registers @fastify/cors in the scope with a delegator that applies the rules above; it answers
 * preflights (204, `Content-Length: 0`, which Safari waits for without) on its own OPTIONS route.
 */
export async function registerCors(app: FastifyInstance, options: CorsOptions): Promise<void> {
  const answerFor = corsAnswer(options);
  const shared = {
    methods: [...options.methods],
    allowedHeaders: [...options.allowedHeaders],
    maxAge: options.maxAgeSeconds,
  };
  const refused = { ...shared, origin: false, credentials: false } satisfies FastifyCorsOptions;
  // One options object per distinct answer: the delegator runs on every request.
  const byOrigin = new Map<string, FastifyCorsOptions>();
  await app.register(cors, {
    delegator: (request: FastifyRequest, callback) => {
      const answer = answerFor(request.headers.origin);
      if (answer === null) return callback(null, refused);
      const key = `${answer.credentials ? 1 : 0}${answer.origin}`;
      let delegated = byOrigin.get(key);
      if (!delegated) {
        delegated = { ...shared, origin: answer.origin, credentials: answer.credentials };
        if (byOrigin.size >= 256) byOrigin.clear();
        byOrigin.set(key, delegated);
      }
      callback(null, delegated);
    },
  });
}

/**
 * An OPTIONS request that is not a preflight is a 400 in the surface's error shape
 * (refusal-shapes.ts), as any other bad request; @fastify/cors answers it in plain text
 * (`strictPreflight`), or not at all when the Origin is missing, hence this step before the
 * plugin's hook.
 */
export const refuseNonPreflightOptions: RequestStep = (request, reply) => {
  if (request.method !== 'OPTIONS' || (request.headers.origin && request.headers['access-control-request-method']))
    return true;
  refuse(request, reply, { kind: 'not_preflight' });
  return false;
};
