/**
 * CSRF (SPEC.md "Authentication", Versioning 2): a state-changing request without `Origin` or
 * `Referer` is refused with 403. Routes that back-end clients call with credentials of their own
 * (token endpoint, MCP, SCIM) declare themselves exempt. When --allowed-origins is a list, a
 * present Origin must be one of them or the service's own origin.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { ServiceError } from '../../core/errors.js';
import { originAllowList } from './cors.js';
import { sendRefusal } from './errors.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Adds the check to each route that can change state as the route is registered: routes that
 * only answer safe methods, and exempt ones, get no hook at all instead of a per-request test.
 */
export function addCsrfCheck(app: FastifyInstance, selfOrigin: string, allowed: string[]): void {
  const check = csrfCheck(selfOrigin, allowed);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((m) => SAFE.has(m))) return;
    if ((route.config as { csrfExempt?: boolean } | undefined)?.csrfExempt) return;
    route.preHandler = route.preHandler === undefined ? [check] : [check, ...(Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler])];
  });
}

export function csrfCheck(selfOrigin: string, allowed: string[]) {
  const origins = originAllowList(allowed);
  // Callback style: this runs before every handler, and an async hook costs a promise per request.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (SAFE.has(request.method)) return done();
    const origin = request.headers.origin;
    const referer = request.headers.referer;
    if (!origin && !referer) return refuse(request, reply, 'missing Origin or Referer header');
    if (origins.any) return done();
    // A same-origin form post from a page with `Referrer-Policy: no-referrer` carries `Origin: null`
    // and no Referer; the browser's own Sec-Fetch-Site (which pages cannot set) tells it apart
    // from a sandboxed frame or a cross-site redirect (credentialed-origins.ts).
    if (origin === 'null' && request.headers['sec-fetch-site'] === 'same-origin') return done();
    let from: string;
    try {
      from = origin && origin !== 'null' ? new URL(origin).origin : new URL(referer ?? '').origin;
    } catch {
      return refuse(request, reply, 'invalid Origin or Referer header');
    }
    if (from !== selfOrigin && !origins.allows(from)) return refuse(request, reply, 'origin not allowed');
    done();
  };
}

/** Sending from a callback hook ends the request; `done` must not be called after it. */
function refuse(request: FastifyRequest, reply: FastifyReply, message: string): void {
  sendRefusal(request, reply, new ServiceError('permission_denied', message));
}
