/** Mounts plugins' raw HTTP routes (well-known documents, /authorize, /oauth/token, health). */
import type { FastifyInstance } from 'fastify';
import type { Kernel } from '../../core/kernel.js';
import { ServiceError, toServiceError } from '../../core/errors.js';
import { applyEffects, contextFromRequest, headersOf } from './context.js';
import { sendError } from './errors.js';
import { refusalAnswer } from './refusal-shapes.js';

export function registerRawRoutes(app: FastifyInstance, kernel: Kernel): void {
  for (const route of kernel.routes) {
    app.route({
      method: route.method,
      url: route.path,
      config: {
        csrfExempt: route.csrfExempt === true,
        errors: route.errors,
        form: route.form === true,
        // A bucket of the route's own instead of the global limiter's (transports/http/rate-limit.ts).
        ...(route.rateLimit ? { rateLimit: { max: route.rateLimit.max, timeWindow: route.rateLimit.timeWindow } } : {}),
      },
      handler: async (request, reply) => {
        const ctx = contextFromRequest(kernel, request, 'http');
        try {
          const res = await route.handler(
            {
              method: request.method,
              path: request.url.split('?')[0],
              query: (request.query ?? {}) as Record<string, string | undefined>,
              rawQuery: request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '',
              headers: headersOf(request),
              body: request.body,
            },
            ctx,
          );
          applyEffects(ctx, reply);
          if (res.headers) for (const [k, v] of Object.entries(res.headers)) reply.header(k, v);
          // A route that states its own frame-ancestors decides framing; the default
          // X-Frame-Options: DENY would override it in browsers that honour both.
          if (/frame-ancestors/.test(res.headers?.['content-security-policy'] ?? ''))
            reply.removeHeader('x-frame-options');
          reply.code(res.status);
          return reply.send(res.body ?? '');
        } catch (err) {
          applyEffects(ctx, reply);
          if (!(err instanceof ServiceError)) kernel.logger.error({ err, route: route.path }, 'route failed');
          const failure = toServiceError(err);
          // A server-side failure (the database unreachable: 503) on a route of another protocol
          // answers in that protocol's error shape: OAuth's `temporarily_unavailable`, SCIM's schema.
          if (route.errors && failure.status.http >= 500) {
            const answer = refusalAnswer(route.errors, {
              kind: 'rejected',
              status: failure.status.http,
              code: failure.code,
              message: failure.message,
              ...(failure.headers ? { headers: failure.headers } : {}),
            });
            return reply.code(answer.status).headers(answer.headers).send(answer.body);
          }
          return sendError(reply, failure);
        }
      },
    });
  }
}
