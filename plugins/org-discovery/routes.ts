/**
 * `GET /api/v1/org-discovery?email=`: public, its own per-IP bucket (the transport's
 * per-route limit, RawRoute.rateLimit, separate from the global limiter), one uniform 400 for a
 * malformed address. The route exists only when `--enable-org-discovery` is on, so it is a 404
 * otherwise.
 */
import { ServiceError } from '../../core/errors.js';
import type { RawRoute } from '../../core/plugin.js';

const NO_STORE = { 'cache-control': 'no-store' };

export function discoveryRoutes(limitPerMinute: number): RawRoute[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/org-discovery',
      rateLimit: { max: limitPerMinute, timeWindow: 60_000 },
      handler: async (req, ctx) => {
        try {
          const answer = await ctx.kernel.service('org-discovery').discover(req.query.email);
          return { status: 200, headers: NO_STORE, body: answer };
        } catch (err) {
          if (!(err instanceof ServiceError)) throw err;
          return {
            status: err.status.http,
            headers: { ...NO_STORE, ...(err.headers ?? {}) },
            body: { code: err.code, message: err.message },
          };
        }
      },
    },
  ];
}
