/**
 * CSRF (SPEC.md "Authentication", Versioning 2): a state-changing request without `Origin` or
 * `Referer` is refused with 403. Routes that back-end clients call with credentials of their own
 * (token endpoint, MCP, SCIM) declare themselves exempt. When --allowed-origins is a list, a
 * present Origin must be one of them or the service's own origin.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export function csrfCheck(selfOrigin: string, allowed: string[]) {
  const anyOrigin = allowed.length === 0 || allowed.includes('*');
  const allowedSet = new Set(allowed.map((o) => o.replace(/\/+$/, '')));
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (SAFE.has(request.method)) return;
    const cfg = request.routeOptions.config as { csrfExempt?: boolean } | undefined;
    if (cfg?.csrfExempt) return;
    const origin = request.headers.origin;
    const referer = request.headers.referer;
    if (!origin && !referer) {
      await reply.code(403).send({ code: 'permission_denied', message: 'missing Origin or Referer header' });
      return;
    }
    if (anyOrigin) return;
    let from: string;
    try {
      from = origin && origin !== 'null' ? new URL(origin).origin : new URL(referer ?? '').origin;
    } catch {
      await reply.code(403).send({ code: 'permission_denied', message: 'invalid Origin or Referer header' });
      return;
    }
    if (from !== selfOrigin && !allowedSet.has(from)) {
      await reply.code(403).send({ code: 'permission_denied', message: 'origin not allowed' });
    }
  };
}
