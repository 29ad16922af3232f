/**
 * CSRF (Versioning 2): a state-changing request without `Origin` or
 * `Referer` is refused with 403. Routes that back-end clients call with credentials of their own
 * (token endpoint, MCP, SCIM) declare themselves exempt. When --allowed-origins is a list, a
 * present Origin (else the Referer's) must be one that may use cookies: listed, or the service's own.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { CredentialedOrigins } from './credentialed-origins.js';
import { refuse as refuseAs } from './refusal-shapes.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Adds the check to each route that can change state as the route is registered: routes that
 * only answer safe methods, and exempt ones, get no hook at all instead of a per-request test.
 *
 * It runs with the route's onRequest hooks, after the app's own (transports/http/request-steps.ts)
 * and before the body is read: the check needs only headers, so a forged post is refused without
 * parsing what it sent, and a route with no other preHandler skips that phase of Fastify's
 * lifecycle altogether (it had been the only preHandler: one hook runner fewer on every POST).
 * Hence a post without Origin and with a malformed body is a 403, not a 400.
 */
export function addCsrfCheck(app: FastifyInstance, anyOrigin: boolean, credentialed: CredentialedOrigins): void {
  const check = csrfCheck(anyOrigin, credentialed);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((m) => SAFE.has(m))) return;
    if ((route.config as { csrfExempt?: boolean } | undefined)?.csrfExempt) return;
    route.onRequest =
      route.onRequest === undefined
        ? [check]
        : [check, ...(Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest])];
  });
}

export function csrfCheck(anyOrigin: boolean, credentialed: CredentialedOrigins) {
  // Callback style: this runs before every handler, and an async hook costs a promise per request.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (SAFE.has(request.method)) return done();
    const origin = request.headers.origin;
    const referer = request.headers.referer;
    if (!origin && !referer) return refuse(request, reply, 'missing Origin or Referer header');
    if (anyOrigin) return done();
    // With a list, the post must come from a page that may use the caller's cookies: the rule of
    // credentialed-origins.ts (a listed origin, the service's own, or its own no-referrer page,
    // whose posts carry `Origin: null`). Another `null` is judged by its Referer, as before.
    const fetchSite = request.headers['sec-fetch-site'] as string | undefined;
    if (origin && credentialed.trusts(origin, fetchSite)) return done();
    if (origin && origin !== 'null') return refuse(request, reply, 'origin not allowed');
    let from: string;
    try {
      from = new URL(referer ?? '').origin;
    } catch {
      return refuse(request, reply, 'invalid Origin or Referer header');
    }
    if (!credentialed.trusts(from)) return refuse(request, reply, 'origin not allowed');
    done();
  };
}

/** Sending from a callback hook ends the request; `done` must not be called after it. */
function refuse(request: FastifyRequest, reply: FastifyReply, message: string): void {
  refuseAs(request, reply, { kind: 'cross_site', message });
}
