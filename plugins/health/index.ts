/**
 * Liveness and readiness: `/healthz` answers
 * from a database ping; `/readyz` also turns not-ready while the server shuts down.
 */
import { definePlugin } from '../../core/plugin.js';

export interface HealthService {
  /** True once the node started shutting down. */
  readonly draining: boolean;
  /** Marks the node as draining: /readyz answers 503 from now on. */
  drain(): void;
}

declare module '../../core/services.js' {
  interface Services {
    health: HealthService;
  }
}

export const healthPlugin = definePlugin<HealthService>({
  name: 'health',
  description: 'Liveness (/healthz) and readiness (/readyz).',
  routes: [
    {
      method: 'GET',
      path: '/healthz',
      handler: async (_req, ctx) =>
        (await ctx.kernel.storage.ping())
          ? { status: 200, body: { status: 'ok' } }
          : { status: 503, body: { status: 'unhealthy' } },
    },
    {
      method: 'GET',
      path: '/readyz',
      handler: async (_req, ctx) => {
        const ok = !ctx.kernel.service('health').draining && (await ctx.kernel.storage.ping());
        return ok ? { status: 200, body: { status: 'ready' } } : { status: 503, body: { status: 'not ready' } };
      },
    },
  ],
  setup() {
    const state = {
      draining: false,
      drain() {
        state.draining = true;
      },
    };
    return state;
  },
});
